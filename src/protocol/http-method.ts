/**
 * The HTTP methods the harness sends: the ordinary ones, and WebDAV's for the 405 rule's wider checks.
 * Here, below the HTTP client, so the request forms (which k6 loads too) and the client share one list.
 */
export type HttpMethod =
  | 'GET'
  | 'HEAD'
  | 'POST'
  | 'PUT'
  | 'DELETE'
  | 'PATCH'
  | 'OPTIONS'
  | 'PROPFIND'
  | 'LOCK'
  | 'SEARCH';
