// Secrets at rest: AES-256-GCM with the configured key; "v1:<iv>:<tag>:<ciphertext>" in base64.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function encryptSecret(plain: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const enc = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), enc.toString('base64')].join(':');
}

export function decryptSecret(sealed: string, key: Buffer): string {
  const [v, iv, tag, enc] = sealed.split(':');
  if (v !== 'v1' || !iv || !tag || enc === undefined) throw new Error('unrecognised secret format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(enc, 'base64')), decipher.final()]).toString('utf8');
}
