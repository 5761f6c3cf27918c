// Secure by default: headers, CORS only when configured, body size limit, mail over real SMTP,
// and no token, password or hash in any log line.
import type { Express } from 'express';
import { createServer, type AddressInfo, type Server } from 'node:net';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../api/app';
import { settleBackgroundWork } from '../api/resources/auth/passwords';
import { logger } from '../common/logger';
import { startStack, type TestStack } from './helpers/stack';
import { hash as bcryptHash } from '@node-rs/bcrypt';
import { User } from '../common/models/user';
import { TEST_PASSWORD, userWithToken } from './helpers/users';

let stack: TestStack;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@security.example.com`;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

describe('headers', () => {
  it('sets helmet security headers and no x-powered-by', async () => {
    const res = await request(stack.app).get('/api/v1/openapi.json');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('sends no CORS headers unless CORS_ORIGINS is configured, then only for those origins', async () => {
    const plain = await request(stack.app).get('/api/v1/openapi.json').set('Origin', 'https://evil.example.com');
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(stack.app).options('/api/v1/auth/login').set('Origin', 'https://evil.example.com').set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();

    const cors = createApp({ ...stack.deps, config: { ...stack.config, CORS_ORIGINS: 'https://app.example.com' } });
    const allowed = await request(cors).get('/api/v1/openapi.json').set('Origin', 'https://app.example.com');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const other = await request(cors).get('/api/v1/openapi.json').set('Origin', 'https://evil.example.com');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a JSON body over the limit with 413 and the failure shape', async () => {
    const res = await request(stack.app).post('/api/v1/auth/login').send({ email: 'a@b.co', password: 'x'.repeat(200 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: false, message: 'Request body is too large', errors: [{ msg: 'Request body is too large' }] });
  });
});

interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

/** A minimal SMTP server (EHLO, MAIL, RCPT, DATA, QUIT) on a free loopback port. */
async function startSmtpServer(): Promise<{ port: number; mails: ReceivedMail[]; server: Server }> {
  const mails: ReceivedMail[] = [];
  const server = createServer((sock) => {
    sock.setEncoding('utf8');
    let buf = '';
    let inData = false;
    let cur: ReceivedMail = { from: '', to: [], data: '' };
    sock.write('220 localhost ESMTP test\r\n');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            mails.push(cur);
            cur = { from: '', to: [], data: '' };
            sock.write('250 OK queued\r\n');
          } else cur.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO') sock.write('250-localhost\r\n250 8BITMIME\r\n');
        else if (cmd === 'HELO' || cmd === 'RSET' || cmd === 'NOOP') sock.write('250 OK\r\n');
        else if (cmd === 'MAIL') {
          cur.from = line;
          sock.write('250 OK\r\n');
        } else if (cmd === 'RCPT') {
          cur.to.push(line);
          sock.write('250 OK\r\n');
        } else if (cmd === 'DATA') {
          inData = true;
          sock.write('354 End data with <CR><LF>.<CR><LF>\r\n');
        } else if (cmd === 'QUIT') sock.end('221 Bye\r\n');
        else sock.write('502 Not implemented\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, mails, server };
}

describe('mail through SMTP_URL', () => {
  it('sends the reset mail through the SMTP server instead of the outbox', async () => {
    const smtp = await startSmtpServer();
    try {
      const app: Express = createApp({ ...stack.deps, config: { ...stack.config, SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
      await userWithToken(stack.app, { email: addr('smtp') });
      expect((await request(app).post('/api/v1/auth/forgot-password').send({ email: addr('smtp') })).status).toBe(200);
      await settleBackgroundWork();
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0]!.to).toEqual([`RCPT TO:<${addr('smtp')}>`]);
      expect(smtp.mails[0]!.from).toContain('no-reply@ledgerflow.local');
      const body = smtp.mails[0]!.data.replace(/=\n/g, '');
      expect(body).toMatch(/Subject: Reset your LedgerFlow password/);
      expect(body).toMatch(/\/reset-password\/[a-f0-9]{64}/);
    } finally {
      smtp.server.close();
    }
  });
});

describe('logs', () => {
  it('never carry a token, password or hash, and name the outbox file of a mail', async () => {
    const lines: string[] = [];
    const stream = (logger as unknown as Record<symbol, { write(s: string): boolean }>)[pino.symbols.streamSym]!;
    const write = stream.write;
    const level = logger.level;
    stream.write = (s: string) => {
      lines.push(s);
      return true;
    };
    logger.level = 'debug';
    try {
      const { token } = await userWithToken(stack.app, { email: addr('logs') });
      await request(stack.app).post('/api/v1/auth/login').send({ email: addr('logs'), password: 'Wrong@pass1' });
      // A bcrypt-era user signs in: its hash is replaced by an argon2id one on the way.
      await User.create({ fullName: 'Legacy', email: addr('logs-legacy'), role: 'user', passwordHash: await bcryptHash(TEST_PASSWORD, 4) });
      expect((await request(stack.app).post('/api/v1/auth/login').send({ email: addr('logs-legacy'), password: TEST_PASSWORD })).status).toBe(200);
      await request(stack.app).post('/api/v1/auth/forgot-password').send({ email: addr('logs') });
      await settleBackgroundWork();
      await request(stack.app).post('/api/v1/user/change-password').set('Authorization', `Bearer ${token}`).send({ currentPassword: TEST_PASSWORD, newPassword: 'Changed1@pw', confirmPassword: 'Changed1@pw' });
      // A refused request (another user's profile) goes through the error handler too.
      await request(stack.app).put('/api/v1/auth/profile/65f000000000000000000000').set('Authorization', `Bearer ${token}`).send({ fullName: 'X' });
    } finally {
      stream.write = write;
      logger.level = level;
    }
    const all = lines.join('');
    expect(all).toContain('mail written to the outbox');
    expect(all).toMatch(/"path":"[^"]+\.eml"/);
    expect(all).not.toMatch(/[a-f0-9]{64}/); // reset tokens
    expect(all).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/); // JWTs
    expect(all).not.toMatch(/\$2[aby]\$\d\d\$/); // bcrypt hashes
    expect(all).not.toMatch(/\$argon2(id|i|d)\$/); // argon2 hashes
    for (const secret of [TEST_PASSWORD, 'Wrong@pass1', 'Changed1@pw', stack.config.JWT_SECRET]) expect(all).not.toContain(secret);
  });
});
