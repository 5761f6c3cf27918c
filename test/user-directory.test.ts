// The user directory (common/records/user-directory.ts) and FerretDB's _id index
// (tools/ferretdb/main.go): on FerretDB login and the admin's user list answer from an indexed
// copy of the users that follows every write through the User model; the copy answers exactly
// what Mongo would.
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { Organization } from '../common/models/organization';
import { User } from '../common/models/user';
import { findUserByEmail, isFerretDb, userDirectory, type UserDirectory } from '../common/records/user-directory';
import { listUsers } from '../api/resources/users/service';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, testPasswordHash, userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

let stack: TestStack;
let admin: string;
let dir: UserDirectory;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  stack = await startStack();
  dir = userDirectory()!;
  ({ token: admin } = await userWithToken(stack.app, { email: 'admin@dir.test', role: 'admin', fullName: 'Ada Admin' }));
  orgA = String((await Organization.create({ organizationName: 'Alpha Ltd' }))._id);
  orgB = String((await Organization.create({ organizationName: 'Beta GmbH' }))._id);
  const hash = await testPasswordHash();
  // Names that sort differently by case and accents, duplicates (ties broken by id), both roles and organizations.
  const names = ['zoë Zimmer', 'Émile Durand', 'anna Berg', 'Anna Berg', 'Bob Stone', 'bob stone', 'Carla Diaz', '', 'Ünal Yilmaz', 'Dora Klein', 'Eve Adams', 'Finn Lee'];
  await User.insertMany(
    names.map((fullName, i) => ({
      fullName,
      email: `user${i}@dir.test`,
      role: i % 5 === 0 ? 'admin' : 'user',
      organization_id: i % 3 === 0 ? null : i % 3 === 1 ? orgA : orgB,
      passwordHash: hash,
    })),
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The same page with the directory off: what Mongo answers. */
async function fromMongo(q: Parameters<typeof listUsers>[0]) {
  dir.ready = false;
  try {
    return await listUsers(q);
  } finally {
    dir.ready = true;
  }
}

test('the test stack runs on FerretDB, so the directory is on', async () => {
  expect(await isFerretDb()).toBe(true);
  expect(userDirectory()).not.toBeNull();
});

test('FerretDB gets an index on the expression it filters {_id} by, and uses it', async () => {
  const db = mongoose.connection.db!.databaseName;
  const file = join(stack.config.DATA_DIR, 'mongo', `${db}.sqlite`);
  expect(existsSync(file)).toBe(true);
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const { table_name: table } = sqlite.prepare(`select table_name from _ferretdb_collections where name = 'users'`).get() as { table_name: string };
    // The launcher's FerretDB adds it within its 2-second sweep.
    await waitFor('the _id expression index', async () => Boolean(sqlite.prepare(`select 1 from sqlite_master where type = 'index' and name = ?`).get(`${table}_ledgerflow_id_expr`)), 15_000);
    const plan = sqlite.prepare(`explain query plan select _ferretdb_sjson from "${table}" where _ferretdb_sjson->'$._id' = ?`).all('"x"') as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain(`USING INDEX ${table}_ledgerflow_id_expr`);
  } finally {
    sqlite.close();
  }
});

test('every page and filter of the user list answers what Mongo answers', async () => {
  const queries = [
    { page: 1 },
    { page: 2 },
    { page: 3 },
    { page: 1, name: 'anna' },
    { page: 1, name: 'BOB' },
    { page: 1, name: 'ë' },
    { page: 1, email: 'USER1' },
    { page: 1, role: 'admin' as const },
    { page: 1, organization: orgA },
    { page: 2, organization: orgB },
    { page: 1, organization: orgA, role: 'user' as const, name: 'a' },
    { page: 1, name: 'nobody' },
  ];
  for (const q of queries) {
    const got = await listUsers(q);
    expect({ q, got }).toEqual({ q, got: await fromMongo(q) });
  }
  const all = await listUsers({ page: 1 });
  expect(all.total).toBe(13);
  expect(all.users.find((u) => u.organization_id === orgA)?.organizationName).toBe('Alpha Ltd');
});

test('the list route answers from the directory, with names, and follows updates through the api at once', async () => {
  const target = await User.findOne({ email: 'user4@dir.test' }).lean();
  const put = await request(stack.app)
    .put(`/api/v1/user/update/${String(target!._id)}`)
    .set('Authorization', `Bearer ${admin}`)
    .send({ fullName: 'Aaron Aardvark', role: 'admin', organization_id: orgB });
  expect(put.status).toBe(200);
  const res = await request(stack.app).get('/api/v1/user').query({ page: 1, role: 'admin' }).set('Authorization', `Bearer ${admin}`);
  expect(res.status).toBe(200);
  expect(res.body.data.users[0]).toMatchObject({ fullName: 'Aaron Aardvark', role: 'admin', organizationName: 'Beta GmbH' });
  expect(res.body.data).toEqual((await request(stack.app).get('/api/v1/user').query({ page: 1, role: 'admin' }).set('Authorization', `Bearer ${admin}`)).body.data);
  expect((await listUsers({ page: 1, role: 'admin' })).users).toEqual((await fromMongo({ page: 1, role: 'admin' })).users);
});

test('multi-document writes, writes by a filter without ids, and deletes are followed', async () => {
  await User.updateMany({ organization_id: orgA, role: 'user' }, { $set: { pipeline: 'moved' } });
  await User.updateMany({ organization_id: orgA }, { $set: { organization_id: null } });
  expect((await listUsers({ page: 1, organization: orgA })).total).toBe(0);
  await User.updateOne({ email: 'user2@dir.test' }, { $set: { fullName: 'Zed Last' } });
  await User.deleteMany({ email: { $in: ['user3@dir.test', 'user5@dir.test'] } });
  const doc = await User.findOne({ email: 'user6@dir.test' });
  await doc!.deleteOne();
  for (const q of [{ page: 1 }, { page: 2 }, { page: 1, name: 'zed' }, { page: 1, organization: orgB }]) expect(await listUsers(q)).toEqual(await fromMongo(q));
  expect((await listUsers({ page: 1 })).total).toBe(10);
});

test('login and forgot-password find users through the directory; a changed email moves with the user', async () => {
  const login = (email: string) => request(stack.app).post('/api/v1/auth/login').send({ email, password: TEST_PASSWORD });
  expect((await login('USER7@dir.test')).status).toBe(200);
  expect((await login('user3@dir.test')).status).toBe(401); // deleted above
  const u7 = await User.findOne({ email: 'user7@dir.test' });
  u7!.email = 'renamed7@dir.test';
  await u7!.save();
  expect((await login('user7@dir.test')).status).toBe(401);
  expect((await login('renamed7@dir.test')).status).toBe(200);
  expect(String((await findUserByEmail('renamed7@dir.test'))?._id)).toBe(String(u7!._id));
});

test('a user written around the model (a restore, a Mongo shell, the benchmark) signs in at once; the copy is checked against Mongo', async () => {
  const login = (email: string, password = TEST_PASSWORD) => request(stack.app).post('/api/v1/auth/login').send({ email, password });
  const hash = await testPasswordHash();
  const id = new mongoose.Types.ObjectId();
  await mongoose.connection.collection('users').insertOne({ _id: id, email: 'around@dir.test', fullName: 'Around', role: 'user', organization_id: null, passwordHash: hash, tokenVersion: 0, dashboards: [] });
  expect(dir.idByEmail('around@dir.test')).toBeNull(); // not written through the model: not copied
  expect((await login('around@dir.test', 'Wrong@pass1')).status).toBe(401); // found in Mongo, the password still checked
  expect(dir.idByEmail('around@dir.test')).toBe(String(id)); // the miss mended the copy
  const ok = await login('around@dir.test');
  expect(ok.status).toBe(200);
  expect(ok.body.data.user.email).toBe('around@dir.test');
  expect((await login('nobody-at-all@dir.test')).status).toBe(401); // unknown stays unknown
  // An email changed straight in Mongo: the copy's stale entry is not trusted, the new email is found.
  await mongoose.connection.collection('users').updateOne({ email: 'user8@dir.test' }, { $set: { email: 'elsewhere8@dir.test' } });
  expect((await login('user8@dir.test')).status).toBe(401);
  expect((await login('elsewhere8@dir.test')).status).toBe(200);
  expect(dir.idByEmail('user8@dir.test')).toBeNull();
  expect(await dir.rebuild()).toBe(11);
  expect((await login('around@dir.test')).status).toBe(200);
  expect((await login('elsewhere8@dir.test')).status).toBe(200);
  for (const q of [{ page: 1 }, { page: 2 }]) expect(await listUsers(q)).toEqual(await fromMongo(q));
});

test('a write during a rebuild is not undone by it', async () => {
  const u = await User.findOne({ email: 'user9@dir.test' }).lean();
  const rebuilding = dir.rebuild();
  await User.updateOne({ _id: u!._id }, { $set: { fullName: 'During Rebuild' } });
  await rebuilding;
  expect((await listUsers({ page: 1, name: 'during rebuild' })).total).toBe(1);
});

test('the copy holds no password hash or session bookkeeping', async () => {
  const rows = dir.db.prepare('select doc from users').all() as { doc: string }[];
  expect(rows.length).toBeGreaterThan(5);
  for (const r of rows) {
    expect(r.doc).not.toMatch(/\$2[aby]\$/);
    expect(Object.keys(JSON.parse(r.doc))).not.toEqual(expect.arrayContaining(['passwordHash']));
    expect(r.doc).not.toMatch(/revokedSessions|loginSources|tokenVersion/);
  }
});
