// The audit trail: one record per admin change (and per password change or reset), with
// before/after snapshots from which every secret is removed.
import type { UserDoc } from '../../common/models/user';
import { AuditRecord } from '../../common/models/audit';
import { logger } from '../../common/logger';

/** Keys never copied into a snapshot: hashes, tokens, passwords, encrypted secrets. */
const SECRET_KEY = /password|hash|token|secret|Enc$|connectionString|^__v$/i;

/** A plain copy of a document with secrets dropped, ObjectIds and dates as strings. */
export function redactSnapshot(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (depth > 6) return '[deep]';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => redactSnapshot(v, depth + 1));
  if (typeof value === 'object') {
    const o = value as Record<string, unknown> & { _bsontype?: string; toHexString?: () => string };
    if (o._bsontype === 'ObjectId' && typeof o.toHexString === 'function') return o.toHexString();
    const plain = typeof (o as { toObject?: unknown }).toObject === 'function' ? (o as unknown as { toObject(): Record<string, unknown> }).toObject() : o;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(plain)) {
      if (SECRET_KEY.test(k)) continue;
      out[k] = redactSnapshot(v, depth + 1);
    }
    return out;
  }
  return value;
}

export interface AuditEntry {
  actor: Pick<UserDoc, '_id' | 'email' | 'role'> | null;
  action: string;
  targetType: 'user' | 'organization' | string;
  targetId: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Writes the record. It follows the change it describes (FerretDB has no transactions); a
 * failure to write it is logged loudly rather than undoing a change the caller already saw.
 */
export async function audit(entry: AuditEntry): Promise<void> {
  try {
    await AuditRecord.create({
      actorId: entry.actor?._id ?? null,
      actorEmail: entry.actor?.email ?? '',
      actorRole: entry.actor?.role ?? '',
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      before: redactSnapshot(entry.before ?? null),
      after: redactSnapshot(entry.after ?? null),
    });
  } catch (err) {
    logger.error({ err, action: entry.action, targetId: entry.targetId }, 'audit record could not be written');
  }
}
