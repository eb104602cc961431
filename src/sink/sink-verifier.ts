/**
 * One place that judges a request's signature under the target's declared scheme, with the keys
 * read once and read again after a verification fails (keys may have rotated since). Each sink thread
 * has one; on a worker thread its keys come from the main thread, which alone talks to the target.
 */
import { checkSignatureClaims, checkSignatureNow, type SignatureCheck, type SigningKeys } from './sink-signature.ts';

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

const noScheme: Verdict = { signature: { ok: 'unchecked', reason: 'the target declares no signature scheme' } };
const noKeys: Verdict = { signature: { ok: 'unchecked', reason: 'the target gives no signing keys' } };

export class SignatureVerifier {
  readonly #scheme: SignatureScheme;
  readonly #read: () => Promise<SigningKeys | undefined>;
  #keys: Promise<SigningKeys | undefined> | undefined;
  /** A read again in flight: failures that arrive together share it. */
  #rereading: Promise<SigningKeys | undefined> | undefined;
  /** The keys once read (`keys` undefined: the target gives none); undefined while a read is under way. */
  #known: { readonly keys: SigningKeys | undefined } | undefined;

  constructor(scheme: SignatureScheme, read: () => Promise<SigningKeys | undefined>) {
    this.#scheme = scheme;
    this.#read = read;
  }

  /**
   * The verdict without waiting when it is certain now (keys read, a plain token that verifies, or
   * nothing to judge); undefined otherwise, and `verify` decides. Answering in the request's own tick
   * is what keeps the sink's cost per request near a plain receiver's.
   */
  verifyNow(signature: string | undefined, url: string, body: Uint8Array): Verdict | undefined {
    if (this.#scheme === 'none') return noScheme;
    const known = this.#known;
    if (known === undefined) return undefined;
    if (known.keys === undefined) return noKeys;
    const check = checkSignatureNow(signature, known.keys, url, body);
    if (check === undefined || !check.ok) return undefined;
    const jti = check.claims?.jti;
    return { signature: { ok: true, key: check.key }, ...(typeof jti === 'string' && jti !== '' && { jti }) };
  }

  async verify(signature: string | undefined, url: string, body: Uint8Array): Promise<Verdict> {
    if (this.#scheme === 'none') return noScheme;
    this.#keys ??= this.#remember(this.#read().catch(() => undefined));
    const keys = await this.#keys;
    if (keys === undefined) return noKeys;
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

  /** Keeps the keys a read gives for `verifyNow`, once it has them. */
  #remember(reading: Promise<SigningKeys | undefined>): Promise<SigningKeys | undefined> {
    void reading.then((keys) => {
      if (this.#keys === reading) this.#known = { keys };
    });
    return reading;
  }

  /** Reads the keys again (once for all the failures waiting together); the old keys if that fails. */
  #reread(old: SigningKeys): Promise<SigningKeys> {
    if (this.#rereading === undefined) {
      const reading = this.#read().catch(() => undefined);
      this.#rereading = reading;
      this.#known = undefined;
      this.#keys = this.#remember(reading.then((fresh) => fresh ?? old));
      void reading.finally(() => {
        if (this.#rereading === reading) this.#rereading = undefined;
      });
    }
    return this.#rereading.then((fresh) => fresh ?? old);
  }
}
