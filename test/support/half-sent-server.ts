/**
 * A loopback HTTP server for answer-budget tests: each answer (`answerBytes` of one letter, chosen by the
 * path's number, so mixed bytes of two answers would show) is held half sent until `together` requests
 * have arrived, so that many answers are being read at once. `/small` answers 100 bytes at once.
 */
import { createServer, type Server } from 'node:http';

export function halfSentServer(answerBytes: number, together: number): Server {
  let halfSent: (() => void)[] = [];
  return createServer((req, res) => {
    const letter = String.fromCharCode(97 + (Number(req.url?.slice(1)) % 26));
    if (req.url === '/small') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 100 }).end(letter.repeat(100));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': answerBytes });
    res.write(letter.repeat(answerBytes / 2));
    halfSent.push(() => res.end(letter.repeat(answerBytes / 2)));
    if (halfSent.length === together) {
      for (const finish of halfSent) finish();
      halfSent = [];
    }
  });
}
