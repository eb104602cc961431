/**
 * One place that judges a request's signature under the target's declared scheme, with the keys
 * read once and read again after a verification fails (keys may have rotated since). Each sink thread
 * has one; on a worker thread its keys come from the main thread, which alone talks to the target.
 */
import { checkSignatureClaims, type SignatureCheck, type SigningKeys } from './sink-signature.ts';

/**
 * A request's signature as the sink saw it: verified, failed with a reason, or not judged (the target
 * declares no scheme the sink knows, or gives no keys), which is never a failure.
 */
export type RequestSignature = SignatureCheck | { readonly ok: 'unchecked'; readonly reason: string };

export type SignatureScheme = 'jwt-hs256' | 'none';

export interface Verdict {
  readonly signature: RequestSignature;
  /** The verified token's `jti`, when it has one (a second use is a replay: the caller compares). */
  readonly jti?: string;
}

export class SignatureVerifier {
  readonly #scheme: SignatureScheme;
  readonly #read: () => Promise<SigningKeys | undefined>;
  #keys: Promise<SigningKeys | undefined> | undefined;
  /** A read again in flight: failures that arrive together share it. */
  #rereading: Promise<SigningKeys | undefined> | undefined;

  constructor(scheme: SignatureScheme, read: () => Promise<SigningKeys | undefined>) {
    this.#scheme = scheme;
    this.#read = read;
  }

  async verify(signature: string | undefined, url: string, body: Uint8Array): Promise<Verdict> {
    if (this.#scheme === 'none') {
      return { signature: { ok: 'unchecked', reason: 'the target declares no signature scheme' } };
    }
    this.#keys ??= this.#read().catch(() => undefined);
    const keys = await this.#keys;
    if (keys === undefined) return { signature: { ok: 'unchecked', reason: 'the target gives no signing keys' } };
    let check = await checkSignatureClaims(signature, keys, url, body);
    if (!check.ok && signature !== undefined && signature !== '') {
      check = await checkSignatureClaims(signature, await this.#reread(keys), url, body);
    }
    if (!check.ok) return { signature: check };
    const jti = check.claims?.jti;
    return {
      signature: { ok: true, key: check.key },
      ...(typeof jti === 'string' && jti !== '' && { jti }),
    };
  }

  /** Reads the keys again (once for all the failures waiting together); the old keys if that fails. */
  #reread(old: SigningKeys): Promise<SigningKeys> {
    if (this.#rereading === undefined) {
      const reading = this.#read().catch(() => undefined);
      this.#rereading = reading;
      this.#keys = reading.then((fresh) => fresh ?? old);
      void reading.finally(() => {
        if (this.#rereading === reading) this.#rereading = undefined;
      });
    }
    return this.#rereading.then((fresh) => fresh ?? old);
  }
}
