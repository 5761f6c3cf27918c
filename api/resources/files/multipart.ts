// Reading the files resource's multipart requests: busboy with the request's limits, the file
// types taken as CSV, and the spool folder a file waits in until its organization is known.
import busboy from 'busboy';
import type { Request } from 'express';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { logger } from '../../../common/logger';
import { messages } from '../../../common/validation';
import { badRequest } from '../../lib/errors';

export interface IncomingFile {
  filename: string;
  mimeType: string;
  stream: Readable;
}

const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/x-csv', 'text/comma-separated-values']);
/** Types browsers and OSes give a .csv file they do not know better (Excel on Windows, curl). */
const GENERIC_TYPES = new Set(['application/vnd.ms-excel', 'text/plain', 'application/octet-stream', '']);

export function acceptedType(file: IncomingFile): boolean {
  const type = file.mimeType.toLowerCase().split(';')[0]!.trim();
  return CSV_TYPES.has(type) || (GENERIC_TYPES.has(type) && /\.csv$/i.test(file.filename));
}

/**
 * Reads a multipart request with busboy, handing each `file` part to onFile as a stream
 * (the fields seen so far alongside). Resolves with all fields once every part is handled.
 */
export function readMultipart(req: Request, maxBytes: number, maxFiles: number, onFile: (file: IncomingFile, fieldsSoFar: Record<string, string>) => Promise<void>): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: maxBytes + 1, files: maxFiles, fields: 20, fieldSize: 64 * 1024, parts: maxFiles + 20 }, defParamCharset: 'utf8' });
    } catch {
      return reject(badRequest(messages.selectFile)); // not a multipart request
    }
    const fields: Record<string, string> = {};
    let handling: Promise<void> = Promise.resolve();
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      // Stop parsing; read and drop the rest so the client gets its answer.
      req.unpipe(bb);
      req.resume();
      reject(e);
    };
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (failed || name !== 'file') return void stream.resume();
      const snapshot = { ...fields };
      handling = handling
        .then(() => onFile({ filename: info.filename ?? '', mimeType: info.mimeType ?? '', stream }, snapshot))
        .catch((e: unknown) => {
          stream.resume();
          fail(e);
        });
    });
    bb.on('filesLimit', () => fail(badRequest(`At most ${maxFiles} files at a time.`)));
    bb.on('error', (e) => fail(badRequest(`The upload could not be read: ${(e as Error).message}`)));
    bb.on('close', () => {
      void handling.then(() => {
        if (!failed) resolve(fields);
      });
    });
    req.pipe(bb);
  });
}

/**
 * Removes what an api killed mid-upload left in the spool folder: every file there from before
 * this process started (a file this process spools is newer, so a second app in one process keeps it).
 */
export function cleanSpoolDir(dir: string, startedAt = Date.now() - process.uptime() * 1000): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // no folder yet
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (statSync(path).mtimeMs < startedAt) {
        rmSync(path, { recursive: true, force: true });
        removed++;
      }
    } catch {
      // gone meanwhile
    }
  }
  if (removed) logger.info({ dir, removed }, 'removed upload spool files left by an earlier api process');
  return removed;
}
