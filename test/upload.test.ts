// POST /api/v1/pipeline/file-upload and GET /api/v1/pipeline/list-files/{orgId} on the real
// stack: files stream into the organization's Azurite container; refused files leave nothing;
// the list answers one page of 10, newest first, with the counts.
import request from 'supertest';
import { createApp } from '../api/app';
import { fileListSchema } from '../common/contract/uploads';
import { Organization } from '../common/models/organization';
import { UploadOrganization } from '../common/models/upload';
import { blobNames, fixture, generatedCsv, onboardedOrg } from './fixtures/csv/helpers';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { countUploads } from './helpers/uploads';

let stack: TestStack;
let adminToken: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'upload-admin@example.com', role: 'admin', fullName: 'Ada Admin' }));
});
afterAll(() => stack.stop());

type Part = { field: string; value: string } | { file: Buffer; name?: string; type?: string };
function upload(token: string, parts: Part[], app = stack.app) {
  const req = request(app).post('/api/v1/pipeline/file-upload').set('Authorization', `Bearer ${token}`);
  for (const p of parts) {
    if ('field' in p) void req.field(p.field, p.value);
    else void req.attach('file', p.file, { filename: p.name ?? 'data.csv', contentType: p.type ?? 'text/csv' });
  }
  return req;
}

/** Every blob in the container, including uncommitted blocks an interrupted upload staged. */
async function allBlobs(containerName: string): Promise<string[]> {
  const names: string[] = [];
  for await (const b of stack.blobService.getContainerClient(containerName).listBlobsFlat({ includeUncommitedBlobs: true })) names.push(b.name);
  return names;
}

describe('POST /api/v1/pipeline/file-upload', () => {
  it('streams the file into the organization container and lists it', async () => {
    const org = await onboardedOrg(stack, 'up');
    const { token } = await userWithToken(stack.app, { email: 'uploader@example.com', organization_id: org.orgId, fullName: 'Uma User' });
    const res = await upload(token, [{ field: 'organizationId', value: org.orgId }, { file: fixture('roundtrip.csv'), name: 'ledger.csv' }]);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    expect(res.body.message).toEqual({ fileUrls: [expect.stringContaining(`/${org.containerName}/uploads/`)], message: 'File uploaded successfully!' });
    const [name] = await blobNames(stack, org.containerName);
    expect(name).toMatch(/^uploads\/[0-9a-f]{24}\/ledger\.csv$/);
    const blob = stack.blobService.getContainerClient(org.containerName).getBlockBlobClient(name!);
    expect(await blob.downloadToBuffer()).toEqual(fixture('roundtrip.csv'));
    expect((await blob.getProperties()).contentType).toBe('text/csv; charset=utf-8');

    const list = await request(stack.app).get(`/api/v1/pipeline/list-files/${org.orgId}`).set('Authorization', `Bearer ${token}`);
    expect(list.status).toBe(200);
    expect(list.body.data.files).toEqual([
      expect.objectContaining({ name: 'ledger.csv', size: fixture('roundtrip.csv').length, uploadedAt: new Date().toISOString().slice(0, 10), uploadedBy: 'Uma User', tableName: null, url: res.body.message.fileUrls[0] }),
    ]);
  });

  it('takes several files, and the file part before the organization field', async () => {
    const org = await onboardedOrg(stack, 'order');
    const res = await upload(adminToken, [
      { file: fixture('tab.csv'), name: 'first.csv' },
      { file: fixture('semicolon-bom.csv'), name: 'second.csv', type: 'application/vnd.ms-excel' },
      { field: 'organizationId', value: org.orgId },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.message.fileUrls).toHaveLength(2);
    expect((await blobNames(stack, org.containerName)).map((n) => n.split('/').pop()).sort()).toEqual(['first.csv', 'second.csv']);
    const list = await request(stack.app).get(`/api/v1/pipeline/list-files/${org.orgId}`).set('Authorization', `Bearer ${adminToken}`);
    expect(list.body.data.files.map((f: { name: string; uploadedBy: string }) => [f.name, f.uploadedBy]).sort()).toEqual([
      ['first.csv', 'Ada Admin'],
      ['second.csv', 'Ada Admin'],
    ]);
  });

  it('lists one page of 10 files at a time, newest first, with page, pageSize, total and pages', async () => {
    const org = await onboardedOrg(stack, 'pages');
    const { token } = await userWithToken(stack.app, { email: 'pager@example.com', organization_id: org.orgId, fullName: 'Pat Pager' });
    const names = Array.from({ length: 23 }, (_, i) => `f${String(i + 1).padStart(2, '0')}.csv`);
    // Three uploads of 10, 10 and 3 files: f23 is the newest (within an upload the later file is newer).
    for (const batch of [names.slice(0, 10), names.slice(10, 20), names.slice(20)]) {
      const res = await upload(token, [{ field: 'organizationId', value: org.orgId }, ...batch.map((name) => ({ file: fixture('tab.csv'), name }))]);
      expect(res.status).toBe(200);
    }
    const list = (query: string, t = token) => request(stack.app).get(`/api/v1/pipeline/list-files/${org.orgId}${query}`).set('Authorization', `Bearer ${t}`);
    const newest = [...names].reverse();
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const res = await list(`?page=${page}`);
      expect(res.status).toBe(200);
      const data = fileListSchema.strict().parse(res.body.data);
      expect({ ...data, files: undefined }).toEqual({ files: undefined, page, pageSize: 10, total: 23, pages: 3 });
      pages.push(data.files.map((f) => f.name));
    }
    expect(pages).toEqual([newest.slice(0, 10), newest.slice(10, 20), newest.slice(20), []]);
    // No page: the first. An empty page parameter is not a page number (issue 32 section 4: as documented, page is a positive integer).
    for (const query of ['']) {
      const res = await list(query);
      expect(res.body.data).toMatchObject({ page: 1, pageSize: 10, total: 23, pages: 3 });
      expect(res.body.data.files.map((f: { name: string }) => f.name)).toEqual(newest.slice(0, 10));
    }
    // Not a page number: 400, as the user and organization lists answer.
    for (const query of ['?page=', '?page=0', '?page=abc', '?page=-1', '?page=1.5', '?page=1&page=2']) {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: false, message: 'Page must be a positive number', errors: [{ msg: 'Page must be a positive number' }] });
    }
    // Another organization's user: 403, whatever the page.
    const other = await onboardedOrg(stack, 'pages-other');
    const { token: stranger } = await userWithToken(stack.app, { email: 'pager-stranger@example.com', organization_id: other.orgId });
    expect((await list('?page=2', stranger)).status).toBe(403);
    expect((await list('', stranger)).status).toBe(403);
    // An organization without files: one empty page.
    const empty = await request(stack.app).get(`/api/v1/pipeline/list-files/${other.orgId}?page=2`).set('Authorization', `Bearer ${stranger}`);
    expect(empty.body.data).toEqual({ files: [], page: 2, pageSize: 10, total: 0, pages: 1 });
  });

  describe('refuses, with a clear message, and writes nothing', () => {
    const refusals: [string, Buffer, string, number, RegExp][] = [
      ['a PNG renamed .csv', fixture('image-renamed.csv'), 'text/csv', 400, /not a CSV file/],
      ['JSON renamed .csv', fixture('json-renamed.csv'), 'text/csv', 400, /not a CSV file/],
      ['non-UTF-8 bytes', fixture('latin1.csv'), 'text/csv', 400, /not UTF-8/],
      ['an empty file', fixture('empty.csv'), 'text/csv', 400, /^The file is empty\.$/],
      ['a header only', fixture('header-only.csv'), 'text/csv', 400, /header but no rows/],
      ['a ragged row', fixture('ragged.csv'), 'text/csv', 400, /^Line 3: the row has 2 fields, but the header has 3\.$/],
      ['unbalanced quotes', fixture('unbalanced-quotes.csv'), 'text/csv', 400, /never closed/],
      ['duplicate column names', fixture('duplicate-columns.csv'), 'text/csv', 400, /Duplicate column name/],
      ['an image type', fixture('tab.csv'), 'image/png', 415, /^Only CSV files \(text\/csv\) can be uploaded\.$/],
      // Invalid UTF-8 far into the file, after blocks were staged.
      ['bad bytes after 4 MB', Buffer.concat([generatedCsv(100000), Buffer.from([0xc3, 0x28, 0x0a])]), 'text/csv', 400, /not UTF-8/],
    ];
    it.each(refusals)('%s', async (_what, content, type, status, message) => {
      const org = await onboardedOrg(stack, 'refuse');
      const res = await upload(adminToken, [{ field: 'organizationId', value: org.orgId }, { file: content, type }]);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ status: false, message: 'File upload failed.' });
      expect(res.body.errors[0].msg).toMatch(message);
      expect(await allBlobs(org.containerName)).toEqual([]);
      expect(await countUploads(stack.config, org.orgId)).toBe(0);
    });

    it('a file over the size limit (default 5 MB), removing the partial blob', async () => {
      const org = await onboardedOrg(stack, 'big');
      const big = generatedCsv(200000); // about 7 MB
      expect(big.length).toBeGreaterThan(5 * 1024 * 1024);
      const res = await upload(adminToken, [{ field: 'organizationId', value: org.orgId }, { file: big }]);
      expect(res.status).toBe(413);
      expect(res.body.errors[0].msg).toBe('The file is larger than the 5 MB limit.');
      expect(await allBlobs(org.containerName)).toEqual([]);
      expect(await countUploads(stack.config, org.orgId)).toBe(0);
    });

    it('the limit follows UPLOAD_MAX_BYTES', async () => {
      const org = await onboardedOrg(stack, 'limit');
      const app = createApp({ ...stack.deps, config: { ...stack.config, UPLOAD_MAX_BYTES: 1000 } });
      const res = await upload(adminToken, [{ field: 'organizationId', value: org.orgId }, { file: generatedCsv(100) }], app);
      expect(res.status).toBe(413);
      expect(res.body.errors[0].msg).toBe('The file is larger than the 1000 bytes limit.');
      const fits = await upload(adminToken, [{ field: 'organizationId', value: org.orgId }, { file: generatedCsv(5) }], app);
      expect(fits.status).toBe(200);
    });

    it('no organization, another organization, no file', async () => {
      const org = await onboardedOrg(stack, 'mine');
      const other = await onboardedOrg(stack, 'theirs');
      const { token } = await userWithToken(stack.app, { email: 'tenant@example.com', organization_id: org.orgId });
      const missing = await upload(token, [{ file: fixture('tab.csv') }]);
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].msg).toBe('Please select an organization first');
      const foreign = await upload(token, [{ field: 'organizationId', value: other.orgId }, { file: fixture('tab.csv') }]);
      expect(foreign.status).toBe(403);
      const noFile = await upload(token, [{ field: 'organizationId', value: org.orgId }]);
      expect(noFile.status).toBe(400);
      expect(noFile.body.errors[0].msg).toBe('Please select a file before uploading.');
      expect(await allBlobs(org.containerName)).toEqual([]);
      expect(await allBlobs(other.containerName)).toEqual([]);
      // Unauthenticated: 401; and the list is tenant-checked too.
      expect((await request(stack.app).post('/api/v1/pipeline/file-upload')).status).toBe(401);
      expect((await request(stack.app).get(`/api/v1/pipeline/list-files/${other.orgId}`).set('Authorization', `Bearer ${token}`)).status).toBe(403);
      expect((await request(stack.app).get(`/api/v1/pipeline/list-files/${org.orgId}`).set('Authorization', `Bearer ${token}`)).body.data.files).toEqual([]);
    });

    it('an organization without its SQL database yet (the file records live there): no files listed; an upload answers what a CSV save answers, storing nothing', async () => {
      // Onboarding stopped after the container: the database is not named yet.
      const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
      const containerName = `csv-nodb-${suffix}`;
      const org = await Organization.create({ organizationName: 'Org nodb', onboarding: { containerName } });
      const orgId = String(org._id);
      await stack.blobService.getContainerClient(containerName).createIfNotExists();
      const list = await request(stack.app).get(`/api/v1/pipeline/list-files/${orgId}`).set('Authorization', `Bearer ${adminToken}`);
      expect(list.status).toBe(200);
      expect(list.body.data.files).toEqual([]);

      const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${adminToken}`).field('orgID', orgId).field('tableName', 'ledger').attach('file', fixture('tab.csv'), { filename: 'data.csv', contentType: 'text/csv' });
      // Either order of the parts: the file after the organization (streamed) or before it (spooled).
      const after = await upload(adminToken, [{ field: 'organizationId', value: orgId }, { file: fixture('tab.csv') }]);
      const before = await upload(adminToken, [{ file: fixture('tab.csv') }, { field: 'organizationId', value: orgId }]);
      expect(saved.status).toBe(409);
      for (const res of [after, before]) {
        expect(res.status).toBe(saved.status);
        expect(res.body).toEqual(saved.body);
      }
      expect(saved.body).toEqual({ status: false, message: 'This organization has no SQL database yet: an admin must onboard it first.', errors: [{ msg: 'This organization has no SQL database yet: an admin must onboard it first.' }] });
      expect(await allBlobs(containerName)).toEqual([]);
      expect(await countUploads(stack.config, orgId)).toBe(0);
      expect(await UploadOrganization.countDocuments({ organization_id: orgId })).toBe(0);
    });
  });
});
