#!/usr/bin/env node
// `npm start`: bootstraps the tools, then runs the whole local stack with state under .data/.
// Ctrl-C stops every child; the next start keeps all data. A worker that dies is started again
// (with a growing delay, said on the console): its workflows resume where they were, and the api,
// Temporal, FerretDB and Azurite go on running. An api that dies still stops everything.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProcessGroup, assertPortsFree, keepRunning, nodeService, startInfrastructure, startMailpit, waitForPort } from './lib/services.mjs';
import { ROOT, ToolError, bootstrap, main } from './lib/tools.mjs';
import { simulatorEnv, simulatorOverrides, simulatorsWanted, startSimulators } from './lib/simulators.mjs';
import { buildWebIfStale } from './lib/web.mjs';

const env = process.env;
const num = (name, dflt) => {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new ToolError(`${name}=${v} is not a port number. Fix: set ${name} to a number from 1 to 65535.`);
  return Number(v);
};

await main(async () => {
  const mongoExternal = Boolean(env.MONGODB_URI);
  // Mail goes to a local Mailpit unless SMTP_URL names a mail server of the user's own.
  const mailExternal = Boolean(env.SMTP_URL);
  const tools = bootstrap({ needFerret: !mongoExternal, needMailpit: !mailExternal });
  const dataDir = resolve(ROOT, env.DATA_DIR || '.data');
  mkdirSync(dataDir, { recursive: true });

  const temporalAddress = env.TEMPORAL_ADDRESS || '127.0.0.1:7233';
  const ports = {
    app: num('PORT', 3000),
    temporal: Number(temporalAddress.split(':')[1] ?? 7233),
    temporalUi: num('TEMPORAL_UI_PORT', 8233),
    mongo: num('FERRETDB_PORT', 27017),
    blob: num('AZURITE_BLOB_PORT', 10000),
    qboSimulator: num('QBO_SIMULATOR_PORT', 8410),
    intacctSimulator: num('INTACCT_SIMULATOR_PORT', 8411),
    netsuiteSimulator: num('NETSUITE_SIMULATOR_PORT', 8412),
    xeroSimulator: num('XERO_SIMULATOR_PORT', 8413),
    // Mailpit: free ports unless set.
    mailpitSmtp: env.MAILPIT_SMTP_PORT ? num('MAILPIT_SMTP_PORT', 0) : undefined,
    mailpitHttp: env.MAILPIT_HTTP_PORT ? num('MAILPIT_HTTP_PORT', 0) : undefined,
  };
  const simulators = simulatorsWanted(env);
  await assertPortsFree([
    ['app', ports.app, 'PORT'],
    ['Temporal dev server', ports.temporal, 'TEMPORAL_ADDRESS'],
    ['Temporal UI', ports.temporalUi, 'TEMPORAL_UI_PORT'],
    ...(mongoExternal ? [] : [['FerretDB', ports.mongo, 'FERRETDB_PORT']]),
    ['Azurite', ports.blob, 'AZURITE_BLOB_PORT'],
    ...(ports.mailpitSmtp && !mailExternal ? [['Mailpit SMTP', ports.mailpitSmtp, 'MAILPIT_SMTP_PORT']] : []),
    ...(ports.mailpitHttp && !mailExternal ? [['Mailpit', ports.mailpitHttp, 'MAILPIT_HTTP_PORT']] : []),
    ...(simulators
      ? [
          ['QuickBooks simulator', ports.qboSimulator, 'QBO_SIMULATOR_PORT'],
          ['Sage Intacct simulator', ports.intacctSimulator, 'INTACCT_SIMULATOR_PORT'],
          ['NetSuite simulator', ports.netsuiteSimulator, 'NETSUITE_SIMULATOR_PORT'],
          ['Xero simulator', ports.xeroSimulator, 'XERO_SIMULATOR_PORT'],
        ]
      : []),
  ]);
  buildWebIfStale();

  const group = new ProcessGroup(join(dataDir, 'logs'));
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\n[start] stopping ...\n');
    await group.stopAll();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  process.stdout.write('[start] starting Temporal dev server, ' + (mongoExternal ? '' : 'FerretDB, ') + 'Azurite ...\n');
  await startInfrastructure(group, { tools, dataDir, ports, namespace: env.TEMPORAL_NAMESPACE || 'default', mongo: !mongoExternal });
  let mail = {};
  let mailNote = `[start] mail: through SMTP_URL (${env.SMTP_URL?.replace(/\/\/[^@/]*@/, '//***@')})\n`;
  if (!mailExternal) {
    process.stdout.write('[start] starting Mailpit (local mail) ...\n');
    const mailpit = await startMailpit(group, { bin: tools.mailpit, dataDir, smtpPort: ports.mailpitSmtp, httpPort: ports.mailpitHttp });
    mail = { SMTP_URL: mailpit.smtpUrl };
    mailNote = [
      `[start] mail goes to the local Mailpit (SMTP ${mailpit.smtpUrl}; SMTP_URL sends it elsewhere):`,
      `[start]   inbox: ${mailpit.apiUrl}/api/v1/messages   newest mail: ${mailpit.apiUrl}/view/latest.txt`,
      '',
    ].join('\n');
  }

  // Local Intuit, Intacct and NetSuite (simulators/) on the embedded default, so the Apps screen
  // connects without an outside account. Settings the user gave (QBO_CLIENT_ID, ...) win.
  let simulated = {};
  let simulatorNote = '';
  let simulatorReady = null;
  if (simulators) {
    process.stdout.write('[start] starting the QuickBooks, Sage Intacct, NetSuite and Xero simulators ...\n');
    const ready = await startSimulators(group, { dataDir, ports, appUrl: `http://127.0.0.1:${ports.app}` });
    simulatorReady = ready;
    simulated = simulatorEnv(env, ready.env);
    const overrides = simulatorOverrides(env, ready.env);
    const { intacct, netsuite } = ready.companies;
    simulatorNote = [
      ...(overrides.length ? ['[start] your own settings beside the simulators:', ...overrides] : []),
      '[start] simulated services (SIMULATORS=false turns them off), for Apps:',
      `[start]   QuickBooks: Connect (the simulator approves at once)${simulated.QBO_CLIENT_ID ? '' : ' - not used: QBO_CLIENT_ID is set'}`,
      `[start]   Sage Intacct: sender ${ready.intacctSender.senderId} / ${ready.intacctSender.senderPassword}, company ${intacct.companyId}, user ${intacct.userId} / ${intacct.userPassword}`,
      `[start]   NetSuite: account ${netsuite.accountId}, client ID ${netsuite.clientId}, certificate ID ${netsuite.certificateId}, key ${ready.netsuiteKeyFile}`,
      `[start]   Xero: Connect (the simulator approves at once and grants two organisations)${simulated.XERO_CLIENT_ID ? '' : ' - not used: XERO_CLIENT_ID is set'}`,
      '',
    ].join('\n');
  }
  const childEnv = { DATA_DIR: dataDir, NODE_ENV: env.NODE_ENV || 'development', ...simulated, ...mail };
  // The demo organization connects to the simulators; it is made only when every connection
  // points at them (a QuickBooks, Sage, NetSuite or Xero setting of the user's own turns it off).
  if (simulators && simulated.QBO_CLIENT_ID && simulated.SAGE_ENDPOINT_URL && simulated.NETSUITE_BASE_URL && simulated.XERO_CLIENT_ID) {
    const { quickbooks, intacct, netsuite } = simulatorReady.companies;
    childEnv.DEMO_CONNECTIONS = JSON.stringify({
      quickbooks: { realmId: quickbooks.realmId },
      sage: { senderId: simulatorReady.intacctSender.senderId, senderPassword: simulatorReady.intacctSender.senderPassword, companyId: intacct.companyId, userId: intacct.userId, userPassword: intacct.userPassword },
      netsuite: { accountId: netsuite.accountId, clientId: netsuite.clientId, certificateId: netsuite.certificateId, keyFile: simulatorReady.netsuiteKeyFile },
      planFile: simulatorReady.demoPlanFile,
    });
  }
  const [workerRun, apiRun] = [nodeService('worker/main.ts'), nodeService('api/main.ts')];
  keepRunning(group, 'worker', () => group.spawn('worker', process.execPath, workerRun.args, { env: { ...childEnv, ...workerRun.env }, cwd: ROOT }), {
    say: (line) => process.stderr.write(`[start] ${line} (log: ${join(dataDir, 'logs', 'worker.log')})\n`),
  });
  const api = group.spawn('api', process.execPath, apiRun.args, { env: { ...childEnv, ...apiRun.env }, cwd: ROOT, echo: true });
  api.once('exit', (code) => {
    if (stopping) return;
    process.stderr.write(`error: api exited with code ${code}. Fix: see ${join(dataDir, 'logs', 'api.log')}\n`);
    void stop(1);
  });
  await waitForPort(ports.app, { name: 'api', child: api, timeoutMs: 120000 });
  process.stdout.write(simulatorNote);
  process.stdout.write(mailNote);
  process.stdout.write(`[start] ready. Logs in ${join(dataDir, 'logs')}. Ctrl-C stops everything.\n`);
});
