/**
 * The REST tokens of area B: the Standard and Read Only tokens of the database, and the tokens
 * `ACL RESTTOKEN` issues for ACL users. All are crypto-random; none is ever logged.
 */
import { randomBytes } from 'node:crypto';

export interface RedisUser {
  readonly username: string;
  readonly password: string;
}

/** Who a request runs as. */
export type Principal =
  | { readonly kind: 'standard' }
  | { readonly kind: 'readonly' }
  | { readonly kind: 'acl'; readonly user: RedisUser };

export interface DatabaseTokens {
  readonly token: string;
  readonly readOnlyToken: string;
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export class KvTokens {
  #current: DatabaseTokens = { token: newToken(), readOnlyToken: newToken() };
  /** Tokens of earlier passwords, honoured only with the fault reset-keeps-tokens. */
  readonly #retired = new Map<string, Principal>();
  readonly #acl = new Map<string, Principal>();
  readonly #aclTokenByUser = new Map<string, string>();
  readonly #keepRetired: boolean;

  constructor(keepRetired: boolean, initial?: DatabaseTokens) {
    this.#keepRetired = keepRetired;
    if (initial !== undefined) this.#current = initial;
  }

  get database(): DatabaseTokens {
    return this.#current;
  }

  resolve(token: string): Principal | undefined {
    if (token === this.#current.token) return { kind: 'standard' };
    if (token === this.#current.readOnlyToken) return { kind: 'readonly' };
    return this.#acl.get(token) ?? this.#retired.get(token);
  }

  /**
   * Spec "Authentication" 2: resetting the database password revokes both tokens. `next` names the
   * tokens to issue instead of random ones, so a suite can put a shared target's tokens back afterwards.
   */
  resetPassword(next: Partial<DatabaseTokens> = {}): DatabaseTokens {
    if (this.#keepRetired) {
      this.#retired.set(this.#current.token, { kind: 'standard' });
      this.#retired.set(this.#current.readOnlyToken, { kind: 'readonly' });
    }
    this.#current = { token: next.token ?? newToken(), readOnlyToken: next.readOnlyToken ?? newToken() };
    return this.#current;
  }

  /** A token carrying one ACL user's permissions; the same user and password get the same token. */
  aclToken(user: RedisUser): string {
    const key = JSON.stringify([user.username, user.password]);
    const known = this.#aclTokenByUser.get(key);
    if (known !== undefined) return known;
    const token = newToken();
    this.#aclTokenByUser.set(key, token);
    this.#acl.set(token, { kind: 'acl', user });
    return token;
  }
}
