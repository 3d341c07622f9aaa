import type { Mode } from '../../store/platform-tables.ts';

// The console's own tables (migration 0027).

/** A signed-in browser. The cookie holds a random token; only its SHA-256 is stored here. */
export interface ConsoleSessionRow {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  account_id: string;
  /** The API key the session was opened with: its scopes and mode are the session's, and revoking it ends the session. */
  key_id: string;
  /** Sent back in every form; compared with the session's on every POST. */
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** A problem the API answered to an account, for the console's debugger page. */
export interface ConsoleProblemRow {
  id: string;
  account_id: string;
  mode: Mode;
  status: number;
  code: string;
  request_id: string;
  method: string;
  path: string;
  created_at: string;
}

export interface ConsoleTables {
  console_sessions: ConsoleSessionRow;
  console_problems: ConsoleProblemRow;
}
