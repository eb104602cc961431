/**
 * Replay detection for the conformance inboxes: a signature's verdict, and where its token (its `jti`)
 * was presented first when it was before. A token presented again (a retry re-sent with the first
 * attempt's token) is not refused: the spec shows no scheme and `jti` is optional in RFC 7519, so
 * whether a token may serve an identical re-send is the implementation's; the sink records it for the
 * case's details (`SinkRequest.replayOf`).
 */
import type { SinkPath } from './sink-paths.ts';
import type { RequestSignature, SignatureVerifier } from './sink-verifier.ts';

export interface WatchedSignature {
  readonly signature: RequestSignature;
  /** The role and path (no query) of the request that presented the same token first. */
  readonly replayOf?: string;
}

export class ReplayWatch {
  readonly #verifier: SignatureVerifier;
  /** Token ids already presented, each with the first request's role and path. */
  readonly #seen = new Map<string, string>();

  constructor(verifier: SignatureVerifier) {
    this.#verifier = verifier;
  }

  async verify(match: SinkPath, signature: string | undefined, body: Uint8Array): Promise<WatchedSignature> {
    const verdict = await this.#verifier.verify(signature, match.publicUrl, body);
    if (verdict.jti === undefined) return { signature: verdict.signature };
    const first = this.#seen.get(verdict.jti);
    if (first !== undefined) return { signature: verdict.signature, replayOf: first };
    this.#seen.set(verdict.jti, `${match.role}${match.rest.split('?')[0]}`);
    return { signature: verdict.signature };
  }
}
