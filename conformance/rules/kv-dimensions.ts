/**
 * Area B: the dimensions each rule speaks about, and where it does not apply (with why). The cells
 * are the cross product of each grid; cases declare the cells they check (`covers`), and
 * `svc-harness rules --coverage` prints the matrix.
 */
import type { RuleDimensions } from '../../src/suite-kit/suite-api.ts';
import { notApplicable as na } from './dimensions.ts';

const streams = ['monitor', 'subscribe'] as const;
const noBytes = ['null', 'integer', 'empty-string', 'ok-simple', 'empty-array'] as const;
const otherDatabase = na(
  { 'traffic-source': ['other-database'] },
  'a case cannot reach another database of the target (SELECT is not supported); the reference filters it',
);

export const kvRuleDimensions: readonly RuleDimensions[] = [
  // Credentials on every endpoint, streams included.
  { rule: 'B.auth.missing-401', grids: [['endpoint']] },
  {
    rule: 'B.auth.invalid-401',
    grids: [['endpoint', 'credentials']],
    notApplicable: [
      na(
        { credentials: ['none', 'read-only', 'standard-header', 'standard-query'] },
        'not an invalid token: the other auth rules',
      ),
    ],
  },
  { rule: 'B.auth.bearer', grids: [['endpoint']] },
  { rule: 'B.auth.query-token', grids: [['endpoint']] },
  {
    rule: 'B.auth.read-only.reads',
    grids: [['endpoint']],
    notApplicable: [
      na({ endpoint: ['publish'] }, 'PUBLISH is not a read command'),
      na({ endpoint: [...streams, 'info'] }, 'whether MONITOR, SUBSCRIBE and INFO count as read commands is not shown'),
    ],
  },
  {
    rule: 'B.auth.read-only.writes-refused',
    grids: [['endpoint']],
    notApplicable: [na({ endpoint: [...streams, 'info'] }, 'the endpoint runs no write command')],
  },

  // Reply shapes at every depth, in every container, under every encoding.
  {
    rule: 'B.response.result-shape',
    grids: [['reply-shape'], ['lookalike']],
    notApplicable: [
      na(
        { 'reply-shape': ['nested-2', 'nested-3'] },
        'the JSON form of nested arrays is not shown (B.observe.nested-json)',
      ),
      na({ 'reply-shape': ['error'] }, 'an error is B.response.error-shape'),
    ],
  },
  {
    rule: 'B.encoding.base64',
    grids: [['reply-shape', 'container'], ['lookalike'], ['endpoint']],
    notApplicable: [
      na({ 'reply-shape': ['error'] }, 'an error text is no result string (notes: not encoded)'),
      na({ 'reply-shape': ['ok-simple'] }, 'the OK reply is exempt: B.encoding.base64-ok-plain'),
      na({ endpoint: [...streams] }, 'whether event payloads are encoded is not shown (notes: they are not)'),
      na({ endpoint: ['head-path'] }, 'a HEAD answer has no body'),
      na({ endpoint: ['publish'] }, '/publish answers an integer, which base64 leaves as it is'),
    ],
  },
  { rule: 'B.encoding.base64-ok-plain', grids: [['container']] },
  {
    rule: 'B.utf8.replacement',
    grids: [['reply-shape', 'container']],
    notApplicable: [
      na({ 'reply-shape': [...noBytes] }, 'the shape carries no bytes to replace'),
      na({ 'reply-shape': ['error'] }, 'an error text is written by the target, not read from the data'),
    ],
  },
  {
    rule: 'B.format.resp2',
    grids: [['reply-shape', 'container'], ['lookalike']],
    notApplicable: [
      na({ container: ['pipeline-item'] }, 'resp2 on /pipeline is not shown (B.observe.pipeline-resp2)'),
      na({ container: ['multi-exec-item'] }, '/multi-exec answers JSON only (B.multi-exec.json-only)'),
    ],
  },
  {
    rule: 'B.format.json',
    grids: [['endpoint']],
    notApplicable: [
      // Their refusals are JSON errors, and kv.endpoint-auth.streams checks that label: the cells are covered.
    ],
  },
  // What comes back for each outcome of a command, in every request form (issue 35, item 5).
  {
    rule: 'B.outcome.by-form',
    grids: [['endpoint', 'kv-outcome']],
    notApplicable: [
      na(
        { endpoint: [...streams], 'kv-outcome': ['success'] },
        'a stream answers events, not a result: B.monitor.first-ok and B.subscribe.subscribe-event',
      ),
      na(
        { endpoint: [...streams, 'publish', 'info'], 'kv-outcome': ['store-error', 'syntax-error', 'unknown-command'] },
        'the endpoint fixes its own command: no other one, malformed or failing at run time, travels through it',
      ),
    ],
  },
  // Each time of the protocol in its unit (seconds, or milliseconds for the P-forms and PX).
  { rule: 'B.commands.time-units', grids: [['expiry-command', 'time-unit']] },
  { rule: 'B.pipeline.order', grids: [['reply-shape']] },
  { rule: 'B.multi-exec.results', grids: [['reply-shape']] },

  // Bytes in every place an argument travels.
  {
    rule: 'B.path.percent-decoding',
    grids: [['byte-class']],
    notApplicable: [na({ 'byte-class': ['empty'] }, 'an empty segment is not shown to be an argument (observed)')],
  },
  {
    rule: 'B.post.body-last-arg',
    grids: [['byte-class']],
    notApplicable: [na({ 'byte-class': ['empty'] }, 'an empty body is not shown to be an argument (observed)')],
  },
  {
    rule: 'B.post.query-args',
    grids: [['byte-class']],
    notApplicable: [na({ 'byte-class': ['empty'] }, 'an empty query value is not shown to be an argument')],
  },
  {
    rule: 'B.root.json-array',
    grids: [['byte-class']],
    notApplicable: [na({ 'byte-class': ['invalid-utf8'] }, 'JSON text carries Unicode only')],
  },

  // What one endpoint shows of another's traffic, and neighbouring names.
  {
    rule: 'B.monitor.command-events',
    grids: [['traffic-source'], ['byte-class']],
    notApplicable: [
      otherDatabase,
      na(
        { 'byte-class': ['bmp', 'astral', 'invalid-utf8', 'nul', 'crlf'] },
        'how a monitor line quotes these bytes is not shown (Redis writes \\xHH)',
      ),
    ],
  },
  {
    rule: 'B.subscribe.message-events',
    grids: [['traffic-source'], ['name-overlap'], ['byte-class']],
    notApplicable: [
      na({ 'traffic-source': ['other-database'] }, 'channels are not per database in the protocol'),
      na({ 'byte-class': ['crlf'] }, 'how an event line carries CR or LF is not shown'),
      na({ 'byte-class': ['invalid-utf8'] }, 'an event stream is UTF-8 text; the replacement there is not shown'),
    ],
  },
];
