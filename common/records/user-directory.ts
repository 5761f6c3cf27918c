// The user directory (issue 17): on FerretDB, an indexed copy of what login and the admin's user
// list read. FerretDB 1.24 filters and sorts every query but {_id} in Go over the whole
// collection (at 10,000 users: login's findOne({email}) ~430 ms, a page of the user list 1.6-1.9 s);
// a real MongoDB answers both from its indexes, so there the directory is not used.
//
// The users stay in Mongo. The copy is a SQLite file beside the other local state
// (DATA_DIR/user-directory/<database>.sqlite) holding each user's public fields (never the password
// hash or the session bookkeeping):
// - every write through the User model is followed, awaited, by a re-read of the users it wrote
//   (common/models/writes.ts followWrites), in whichever process wrote (api or worker);
// - the api rebuilds it from Mongo at start (a crash between a write and its copy is mended there),
//   and answers from Mongo until that is done;
// - what it answers is checked where it matters: login reads the user by id from Mongo and
//   compares the email. A user written straight to the database, not through the model, is not
//   in the copy until the api's next start: login then reads Mongo by email itself and copies
//   the user it finds (findUserByEmail), so such a user signs in all the same.
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import { logger } from '../logger';
import { followUserWrites, User, type UserDoc } from '../models/user';
import type { Written } from '../models/writes';

/** The fields the copy keeps (publicUser's); the hash and session bookkeeping never leave Mongo. */
const PUBLIC_FIELDS = { fullName: 1, email: 1, phoneNumber: 1, role: 1, organization_id: 1, pipeline: 1, dashboards: 1 } as const;
type PublicUserDoc = Pick<UserDoc, '_id' | 'fullName' | 'email' | 'phoneNumber' | 'role' | 'organization_id' | 'pipeline' | 'dashboards'>;

export interface DirectoryFilter {
  /** Contained in the full name, any case. */
  name?: string;
  /** Contained in the email, any case. */
  email?: string;
  role?: string;
  organization?: string;
}

const SCHEMA = `
create table if not exists users (
  id text primary key,
  email text not null,
  full_name text not null,
  full_name_fold text not null,
  role text not null,
  organization_id text,
  doc text not null
);
create index if not exists users_email on users (email);
create index if not exists users_name on users (full_name, id);
create index if not exists users_org on users (organization_id, full_name, id);
create index if not exists users_role on users (role, full_name, id);
`;

export class UserDirectory {
  readonly db: Database.Database;
  /** Built from Mongo in this process: reads may use it. */
  ready = false;
  /** Ids written while a rebuild reads Mongo: copied again after it. */
  private touched: Set<string> | null = null;
  private readonly upsertStmt: Database.Statement;
  private readonly deleteStmt: Database.Statement;
  private readonly byEmailStmt: Database.Statement;

  constructor(readonly file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.upsertStmt = this.db.prepare(
      `insert into users (id, email, full_name, full_name_fold, role, organization_id, doc) values (@id, @email, @full_name, @full_name_fold, @role, @organization_id, @doc)
       on conflict(id) do update set email = excluded.email, full_name = excluded.full_name, full_name_fold = excluded.full_name_fold, role = excluded.role, organization_id = excluded.organization_id, doc = excluded.doc`,
    );
    this.deleteStmt = this.db.prepare('delete from users where id = ?');
    this.byEmailStmt = this.db.prepare('select id from users where email = ?');
  }

  private row(u: PublicUserDoc) {
    const fullName = u.fullName ?? '';
    const doc = { _id: String(u._id), fullName, email: u.email, phoneNumber: u.phoneNumber, role: u.role, organization_id: u.organization_id ? String(u.organization_id) : null, pipeline: u.pipeline, dashboards: u.dashboards };
    return { id: String(u._id), email: u.email, full_name: fullName, full_name_fold: fullName.toLowerCase(), role: u.role ?? 'user', organization_id: doc.organization_id, doc: JSON.stringify(doc) };
  }

  /** Copies the users again from Mongo (gone ones leave the copy). */
  async refresh(ids: string[]): Promise<void> {
    for (const id of ids) {
      this.touched?.add(id);
      const u = mongoose.isValidObjectId(id) ? await User.findById(id, PUBLIC_FIELDS).lean<PublicUserDoc>() : null;
      if (u) this.upsertStmt.run(this.row(u));
      else this.deleteStmt.run(id);
    }
  }

  /** Replaces the copy with Mongo's users; writes made meanwhile are copied again after. */
  async rebuild(): Promise<number> {
    const touched = new Set<string>();
    this.touched = touched;
    try {
      const users = await User.find({}, PUBLIC_FIELDS).lean<PublicUserDoc[]>();
      this.db.transaction(() => {
        this.db.prepare('delete from users').run();
        for (const u of users) this.upsertStmt.run(this.row(u));
      })();
      this.touched = null;
      await this.refresh([...touched]);
      this.ready = true;
      return users.length;
    } finally {
      if (this.touched === touched) this.touched = null;
    }
  }

  /** The id of the user with this email, null when none (only while ready). */
  idByEmail(email: string): string | null {
    const row = this.byEmailStmt.get(email.trim().toLowerCase()) as { id: string } | undefined;
    return row?.id ?? null;
  }

  /** One page of the admin's list, sorted by full name then id (as the Mongo query sorts). */
  list(filter: DirectoryFilter, page: { offset: number; limit: number }): { total: number; users: PublicUserDoc[] } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.name) {
      where.push('instr(full_name_fold, ?) > 0');
      args.push(filter.name.toLowerCase());
    }
    if (filter.email) {
      where.push('instr(email, ?) > 0');
      args.push(filter.email.toLowerCase());
    }
    if (filter.role) {
      where.push('role = ?');
      args.push(filter.role);
    }
    if (filter.organization) {
      where.push('organization_id = ?');
      args.push(filter.organization);
    }
    const clause = where.length ? `where ${where.join(' and ')}` : '';
    const { n } = this.db.prepare(`select count(*) as n from users ${clause}`).get(...args) as { n: number };
    const rows = this.db.prepare(`select doc from users ${clause} order by full_name, id limit ? offset ?`).all(...args, page.limit, page.offset) as { doc: string }[];
    return { total: n, users: rows.map((r) => JSON.parse(r.doc) as PublicUserDoc) };
  }

  close(): void {
    this.db.close();
  }
}

let directory: UserDirectory | null = null;
let building: Promise<unknown> | null = null;

/** The directory when this process may answer from it (FerretDB, built), else null: read Mongo. */
export function userDirectory(): UserDirectory | null {
  return directory?.ready ? directory : null;
}

/** Whether the connected Mongo is FerretDB (buildInfo names its version). */
export async function isFerretDb(): Promise<boolean> {
  const db = mongoose.connection.db;
  if (!db) return false;
  const info = await db.admin().command({ buildInfo: 1 });
  return typeof info.ferretdbVersion === 'string';
}

async function follow(written: Written): Promise<void> {
  const d = directory;
  if (!d) return;
  try {
    if ('all' in written) await d.rebuild();
    else await d.refresh(written.ids);
  } catch (err) {
    // The write itself happened; the copy is behind until the next write of the user or start.
    logger.error({ err }, 'user directory: a write could not be copied');
  }
}

/**
 * Opens the directory when the connected Mongo is FerretDB (after mongoose.connect). `rebuild`
 * (the api): copies every user now, in the background; reads use it once done. Without it (the
 * worker) the process only copies what it writes.
 */
export async function openUserDirectory(cfg: Config, opts: { rebuild: boolean }): Promise<UserDirectory | null> {
  await closeUserDirectory();
  if (!(await isFerretDb())) return null;
  const dir = join(cfg.DATA_DIR, 'user-directory');
  mkdirSync(dir, { recursive: true });
  const d = new UserDirectory(join(dir, `${mongoose.connection.db!.databaseName}.sqlite`));
  directory = d;
  followUserWrites(follow);
  if (opts.rebuild) {
    const started = Date.now();
    building = d.rebuild().then(
      (n) => logger.info({ users: n, ms: Date.now() - started }, 'user directory built'),
      (err: unknown) => logger.error({ err }, 'user directory not built: login and the user list read Mongo'),
    );
  }
  return d;
}

/** Resolves once a rebuild started by openUserDirectory is over (tests, the benchmark). */
export async function userDirectoryBuilt(): Promise<void> {
  await building;
}

export async function closeUserDirectory(): Promise<void> {
  await building?.catch(() => undefined);
  building = null;
  followUserWrites(null);
  directory?.close();
  directory = null;
}

/**
 * The user with this (lowercased) email, with the extra fields selected (e.g. '+passwordHash'):
 * on FerretDB through the directory and then by id (the user as Mongo has it, its email checked),
 * elsewhere by Mongo's email index.
 *
 * The directory only knows users written through the User model (and those there at the api's
 * start): one inserted straight into the collection (a restore, a migration, a fix made with a
 * Mongo shell, `npm run bench:reports`) is not in it. So when the directory has no user for the
 * email, or its user no longer has that email, Mongo itself is asked (FerretDB scans for it: slower,
 * ~0.4 s at 10,000 users, and only on a miss), and a user found there is copied into the directory
 * so the next sign-in finds it at once. A user who exists is never answered as unknown. The
 * price: on FerretDB an unknown email now costs that scan, so it answers measurably slower than a
 * known one (an enumeration hint the login throttle's per-IP and per-account limits keep slow).
 */
export async function findUserByEmail<T = UserDoc>(email: string, select?: string): Promise<T | null> {
  const byEmail = () => {
    const q = User.findOne({ email });
    return (select ? q.select(select) : q).lean<T & { _id: unknown }>();
  };
  const d = userDirectory();
  if (!d) return byEmail();
  const id = d.idByEmail(email);
  if (id) {
    const q = User.findById(id);
    const u = await (select ? q.select(select) : q).lean<T & { email?: string }>();
    if (u && u.email === email) return u;
  }
  const u = await byEmail();
  // Mend the copy: the user found (and the stale entry, if any) as Mongo has them now.
  const stale = [...(u ? [String(u._id)] : []), ...(id ? [id] : [])];
  if (stale.length) await d.refresh(stale).catch((err: unknown) => logger.error({ err }, 'user directory: a user found in Mongo could not be copied'));
  return u;
}
