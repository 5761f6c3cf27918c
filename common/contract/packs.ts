// Report packs as the api answers them (api/resources/packs) and the web app reads them.

export type PackScheduleKind = 'none' | 'locked' | 'working-day';

export interface PackSendAnswer {
  id: string;
  /** now-<id>, locked-<YYYY-MM>, working-day-<YYYY-MM>: one send per key. */
  key: string;
  trigger: 'now' | 'locked' | 'working-day';
  requestedBy: string;
  period: string | null;
  recipients: string[];
  status: 'sending' | 'retrying' | 'sent' | 'failed';
  attempts: number;
  error: string | null;
  pages: number | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface PackItemAnswer {
  kind: 'statement' | 'custom';
  ref: string;
  title: string;
}

export interface PackAnswer {
  id: string;
  name: string;
  items: PackItemAnswer[];
  range: string;
  period: string | null;
  parentheses: boolean;
  recipients: { id: string; name: string; email: string | null }[];
  schedule: { kind: PackScheduleKind; day: number | null };
  createdBy: string;
  updatedBy: string;
  updatedAt: string;
  lastSend: PackSendAnswer | null;
}

export interface PackOptionsAnswer {
  statements: { ref: string; title: string }[];
  custom: { id: string; name: string }[];
  users: { id: string; name: string; email: string }[];
}

/** A pack as it is saved (POST and PUT bodies). */
export interface PackBodyInput {
  name: string;
  items: { kind: 'statement' | 'custom'; ref: string }[];
  range: string;
  period: string | null;
  parentheses: boolean;
  recipients: string[];
  schedule: { kind: PackScheduleKind; day: number | null };
}
