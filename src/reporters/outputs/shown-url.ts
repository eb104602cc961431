/**
 * A destination as a printed line may show it: an http(s) URL's user and password, and its query
 * (where a token often travels), masked; anything else (a file's path) as it is. Every output's lines
 * name their destination this way, never as given.
 */
export function withoutCredentials(destination: string): string {
  const url = URL.parse(destination);
  if (url === null || !/^https?:$/.test(url.protocol)) return destination;
  if (url.username !== '' || url.password !== '') {
    url.username = '***';
    url.password = '';
  }
  if (url.search !== '') url.search = '?***';
  return url.href;
}
