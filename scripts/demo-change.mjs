#!/usr/bin/env node
// `npm run demo:change -- [--source quickbooks|sage|netsuite] --amount 2500 [--month YYYY-MM]
// [--realm ID] [--memo TEXT] [--no-webhook]`: posts a sale on credit (Dr receivables, Cr revenue)
// to a simulated ledger that npm start runs, through the simulator's control endpoint.
//   quickbooks (default): the US company; the simulator then sends Intuit's webhook to LedgerFlow
//     (--no-webhook: none, as if it were lost: the next scheduled sync finds it by change data capture).
//   sage: the UK company on Sage Intacct; when its platform trigger is set (npm start's demo sets
//     it on every start: the simulator's PUT /simulator/v1/trigger with the URL and secret
//     POST /api/v1/sage/webhook-secret answered; api/demo/sage-trigger.ts),
//     the simulator posts the trigger call to LedgerFlow at once; else the next sync (Sync now, or
//     the schedule) finds its GL entries by WHENMODIFIED.
//   netsuite: the German subsidiary on NetSuite; the next sync finds its transaction by lastmodifieddate.
// Prints what changed (and, for QuickBooks, how the webhook delivery went).
const USAGE = 'usage: npm run demo:change -- [--source quickbooks|sage|netsuite] [--amount 2500.00] [--month YYYY-MM] [--realm REALM_ID] [--memo TEXT] [--no-webhook]';
const SOURCES = {
  quickbooks: { env: 'QBO_SIMULATOR_PORT', port: '8410', name: 'QuickBooks' },
  sage: { env: 'INTACCT_SIMULATOR_PORT', port: '8411', name: 'Sage Intacct' },
  netsuite: { env: 'NETSUITE_SIMULATOR_PORT', port: '8412', name: 'NetSuite' },
};

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: true };
    if (arg === '--no-webhook') {
      out.noWebhook = true;
      continue;
    }
    const m = /^--(source|amount|month|realm|memo)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg}\n${USAGE}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${m[1]} needs a value\n${USAGE}`);
    out[m[1]] = value;
  }
  if (out.amount !== undefined && !/^\d{1,13}(\.\d{1,2})?$/.test(out.amount.replace(/,/g, ''))) throw new Error(`--amount must be a positive amount with at most 2 decimals (got ${out.amount})`);
  if (out.month !== undefined && !/^\d{4}-\d{2}$/.test(out.month)) throw new Error(`--month must be YYYY-MM (got ${out.month})`);
  out.source ??= 'quickbooks';
  if (!SOURCES[out.source]) throw new Error(`--source must be quickbooks, sage or netsuite (got ${out.source})`);
  if (out.source !== 'quickbooks' && (out.realm !== undefined || out.noWebhook)) throw new Error(`--realm and --no-webhook are for --source quickbooks\n${USAGE}`);
  return out;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const source = SOURCES[args.source];
  const port = process.env[source.env] || source.port;
  const url = `http://127.0.0.1:${port}/simulator/v1/journal`;
  const body = { ...(args.amount ? { amount: args.amount.replace(/,/g, '') } : {}), ...(args.month ? { month: args.month } : {}), ...(args.realm ? { realmId: args.realm } : {}), ...(args.memo ? { memo: args.memo } : {}), ...(args.noWebhook ? { notify: false } : {}) };
  let res;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(30000) });
  } catch (e) {
    const why = e?.cause?.code === 'ECONNREFUSED' ? 'nothing listens there' : (e?.cause?.message ?? e.message);
    process.stderr.write(`error: the ${source.name} simulator is not running at http://127.0.0.1:${port} (${why}).\nFix: start LedgerFlow with \`npm start\` (the simulators run on the embedded default unless SIMULATORS=false), or set ${source.env} to the port it uses.\n`);
    return 1;
  }
  const text = await res.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = null;
  }
  if (!res.ok || !answer?.journal) {
    process.stderr.write(`error: the simulator refused the change (HTTP ${res.status}): ${answer?.error ?? text.slice(0, 300)}\n`);
    return 1;
  }
  if (args.source === 'sage') {
    const j = answer.journal;
    const out = [`Posted Sage Intacct GL batch ${j.batchNo} to company ${j.companyId}, ${j.month}:`];
    for (const e of j.entries) out.push(`  ${e.TR_TYPE === '1' ? 'Dr' : 'Cr'} ${e.AMOUNT}  ${e.ACCOUNTNO} ${e.TITLE} (entry ${e.RECORDNO}, modified ${e.WHENMODIFIED} UTC)`);
    const d = answer.delivered;
    if (!d) out.push('Trigger: none set on this company (npm start sets it once the demo organization is ready); the next sync (Sync now on the Apps screen, or the schedule) reads this month only, found by WHENMODIFIED.');
    else if (d.ok) out.push(`Trigger: delivered to ${d.url}, HTTP ${d.status} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}; LedgerFlow syncs this month and consolidates it.`);
    else out.push(`Trigger: not delivered to ${d.url} (${d.error ?? `HTTP ${d.status}`})${d.retrying ? `; the simulator retries, next in ${Math.round((d.nextRetryMs ?? 0) / 1000)} s` : ''}.`);
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  }
  if (args.source === 'netsuite') {
    const j = answer.journal;
    const out = [`Posted NetSuite transaction ${j.transaction} to ${j.subsidiary.name} (subsidiary ${j.subsidiary.id}), ${j.month}:`];
    for (const l of j.lines) out.push(`  ${l.debit ? `Dr ${l.debit}` : `Cr ${l.credit}`}  ${l.account} ${l.name}`);
    out.push('The next sync (Sync now on the Apps screen, or the schedule) reads this month only, found by lastmodifieddate.');
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  }
  const j = answer.journal;
  const out = [`Posted QuickBooks journal entry ${j.id} to ${j.company} (realm ${j.realmId}), ${j.date}: ${j.memo}`];
  for (const l of j.lines) out.push(`  ${l.debit !== '0.00' ? `Dr ${l.debit}` : `Cr ${l.credit}`} USD  ${l.account} ${l.name}`);
  out.push(`Trial balance at ${j.month} end (debit positive):`);
  for (const c of answer.changes ?? []) out.push(`  ${c.account} ${c.name}: ${c.before} -> ${c.after}`);
  const d = answer.delivered;
  if (!d) out.push(args.noWebhook ? 'Webhook: none sent (--no-webhook): the next scheduled sync finds the change by change data capture.' : 'Webhook: none sent (the simulator has no webhook URL).');
  else if (d.ok) out.push(`Webhook (${d.format}): delivered to ${d.url}, HTTP ${d.status} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}.`);
  else out.push(`Webhook (${d.format}): not delivered to ${d.url} (${d.error ?? `HTTP ${d.status}`})${d.retrying ? `; the simulator retries, next in ${Math.round((d.nextRetryMs ?? 0) / 1000)} s` : ''}.`);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

process.exitCode = await main();
