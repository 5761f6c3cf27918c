// Unlisted methods answer 405 "Method Not Allowed" with Allow (issue 14 step 4); unknown paths 404.
import request from 'supertest';
import { startStack, type TestStack } from './helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

describe('methods a path does not answer', () => {
  it.each([
    ['patch', '/api/v1/pipeline/saveCSV', 'POST'],
    ['delete', '/api/v1/auth/login', 'POST'],
    ['post', '/api/v1/user/profile', 'GET, HEAD'],
    ['put', '/api/v1/pipeline/list-files/0123456789abcdef01234567', 'GET, HEAD'],
  ] as const)('%s %s -> 405, Allow: %s', async (method, path, allow) => {
    const res = await request(stack.app)[method](path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body).toMatchObject({ status: false, message: 'Method Not Allowed' });
  });

  it('an unknown path is still 404', async () => {
    const res = await request(stack.app).get('/api/v1/no-such-thing');
    expect(res.status).toBe(404);
  });
});
