/**
 * The built-in authorization server's state in the app's database (both dialects): registered clients,
 * authorization codes and refresh tokens. Codes and refresh tokens are kept as sha256 hashes, so a copy of
 * the database holds nothing a client could present. Every table is bounded: clients by a cap (the
 * oldest unused registrations make room), codes and tokens by expiry, pruned as new ones are written.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Database, OAuthRefreshTokensTable } from '../store/tables.js';

/** The sha256 of a code or token, as stored. */
function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** A fresh code, refresh token or grant id: 256 random bits. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export interface GrantRecord {
  clientId: string;
  userId: number;
  grantId: string;
  scope: string;
  resource: string;
  expiresAt: string;
  usedAt: string | null;
}

interface CodeRecord extends GrantRecord {
  redirectUri: string;
  codeChallenge: string;
}

export interface OAuthStore {
  getClient(clientId: string): Promise<OAuthClientInformationFull | undefined>;
  /** Registers the client, or answers false when the registry is full even after pruning. */
  registerClient(client: OAuthClientInformationFull, now: Date): Promise<boolean>;
  /** Saves the code; false when it was saved before (the same consent posted again). */
  saveCode(code: string, record: CodeRecord, now: Date): Promise<boolean>;
  findCode(code: string): Promise<CodeRecord | undefined>;
  /** Marks the code used; false when another exchange used it first (a replay). */
  useCode(code: string, now: Date): Promise<boolean>;
  saveRefreshToken(token: string, record: Omit<GrantRecord, 'usedAt'>, now: Date): Promise<void>;
  findRefreshToken(token: string): Promise<GrantRecord | undefined>;
  /** Marks the token rotated; false when another request rotated it first (a reuse). */
  useRefreshToken(token: string, now: Date): Promise<boolean>;
  /** Deletes every refresh token (and code) of the grant: what a replay or a revocation ends. */
  revokeGrant(grantId: string): Promise<void>;
}

export interface OAuthStoreOptions {
  /** At most this many registered clients. */
  maxClients: number;
  /** A registration older than this that holds no refresh token may give way to a new one at the cap. */
  unusedClientMaxAgeMs: number;
  /**
   * How long a code's row is kept past its expiry: while the consent form that minted it can still be
   * posted, so posting it again is recognised (a code is derived from its form) and mints nothing new.
   */
  expiredCodeKeepMs: number;
}

/** What a code row and a refresh-token row share: the grant they carry. */
type Row = Omit<OAuthRefreshTokensTable, 'token_hash'>;

function toGrant(row: Row): GrantRecord {
  return {
    clientId: row.client_id,
    userId: row.user_id,
    grantId: row.grant_id,
    scope: row.scope,
    resource: row.resource,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

export function createOAuthStore(db: Kysely<Database>, options: OAuthStoreOptions): OAuthStore {
  const clientCount = async () =>
    Number(
      (
        await db
          .selectFrom('oauth_clients')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      )?.n ?? 0,
    );
  return {
    async getClient(clientId) {
      const row = await db
        .selectFrom('oauth_clients')
        .select('client_json')
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      return row ? (JSON.parse(row.client_json) as OAuthClientInformationFull) : undefined;
    },

    async registerClient(client, now) {
      if ((await clientCount()) >= options.maxClients) {
        const cutoff = new Date(now.getTime() - options.unusedClientMaxAgeMs).toISOString();
        // The oldest registration that never got a grant gives way, one per new one: a flood of
        // registrations can only push out other unused ones, and only once they are past the minimum age.
        await db
          .deleteFrom('oauth_clients')
          .where(
            'client_id',
            'in',
            db
              .selectFrom('oauth_clients')
              .select('client_id')
              .where('created_at', '<', cutoff)
              .where('client_id', 'not in', db.selectFrom('oauth_refresh_tokens').select('client_id'))
              .orderBy('created_at')
              .limit(1),
          )
          .execute();
        if ((await clientCount()) >= options.maxClients) return false;
      }
      await db
        .insertInto('oauth_clients')
        .values({
          client_id: client.client_id,
          client_json: JSON.stringify(client),
          created_at: now.toISOString(),
        })
        .execute();
      return true;
    },

    async saveCode(code, record, now) {
      const cutoff = new Date(now.getTime() - options.expiredCodeKeepMs).toISOString();
      await db.deleteFrom('oauth_codes').where('expires_at', '<', cutoff).execute();
      const result = await db
        .insertInto('oauth_codes')
        .values({
          code_hash: hashSecret(code),
          client_id: record.clientId,
          user_id: record.userId,
          grant_id: record.grantId,
          redirect_uri: record.redirectUri,
          code_challenge: record.codeChallenge,
          scope: record.scope,
          resource: record.resource,
          expires_at: record.expiresAt,
          used_at: null,
        })
        .onConflict((conflict) => conflict.column('code_hash').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async findCode(code) {
      const row = await db
        .selectFrom('oauth_codes')
        .selectAll()
        .where('code_hash', '=', hashSecret(code))
        .executeTakeFirst();
      return row
        ? { ...toGrant(row), redirectUri: row.redirect_uri, codeChallenge: row.code_challenge }
        : undefined;
    },

    async useCode(code, now) {
      const result = await db
        .updateTable('oauth_codes')
        .set({ used_at: now.toISOString() })
        .where('code_hash', '=', hashSecret(code))
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async saveRefreshToken(token, record, now) {
      await db.deleteFrom('oauth_refresh_tokens').where('expires_at', '<', now.toISOString()).execute();
      await db
        .insertInto('oauth_refresh_tokens')
        .values({
          token_hash: hashSecret(token),
          client_id: record.clientId,
          user_id: record.userId,
          grant_id: record.grantId,
          scope: record.scope,
          resource: record.resource,
          expires_at: record.expiresAt,
          used_at: null,
        })
        .execute();
    },

    async findRefreshToken(token) {
      const row = await db
        .selectFrom('oauth_refresh_tokens')
        .selectAll()
        .where('token_hash', '=', hashSecret(token))
        .executeTakeFirst();
      return row ? toGrant(row) : undefined;
    },

    async useRefreshToken(token, now) {
      const result = await db
        .updateTable('oauth_refresh_tokens')
        .set({ used_at: now.toISOString() })
        .where('token_hash', '=', hashSecret(token))
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async revokeGrant(grantId) {
      await db.deleteFrom('oauth_refresh_tokens').where('grant_id', '=', grantId).execute();
      // The used code stays (as used), so a later replay of it is still recognised and refused.
    },
  };
}
