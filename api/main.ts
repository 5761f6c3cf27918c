// The api process: connects Mongo and Temporal once, creates the first admin, then listens.
import { BlobServiceClient } from '@azure/storage-blob';
import mongoose from 'mongoose';
import { config, ConfigError } from '../common/config';
import { logger, setLogLevel } from '../common/logger';
import { createApp } from './app';
import { createTemporalClient } from './lib/temporal';
import { ensureFirstAdmin } from './lib/first-admin';
import { demoWanted, runDemo } from './demo/seed';
import { closeRunStores } from '../warehouse/records/run-store';
import { closeUserDirectory, openUserDirectory } from '../common/records/user-directory';

async function main() {
  const cfg = config();
  setLogLevel(cfg.LOG_LEVEL);
  // mongoose otherwise captures a stack for every query, only to decorate errors.
  mongoose.set('skipOriginalStackTraces', true);
  await mongoose.connect(cfg.MONGODB_URI, { serverSelectionTimeoutMS: 10000 });
  await mongoose.syncIndexes();
  // On FerretDB: login and the user list read the user directory once it is built (in the background).
  await openUserDirectory(cfg, { rebuild: true });
  const { connection, client: temporal } = createTemporalClient(cfg);
  await connection.ensureConnected();
  const blobService = BlobServiceClient.fromConnectionString(cfg.AZURE_STORAGE_CONNECTION_STRING);
  const app = createApp({ config: cfg, temporal, blobService });

  const admin = await ensureFirstAdmin(cfg);
  const server = app.listen(cfg.PORT, cfg.HOST, () => {
    const lines = [`App:         ${cfg.PUBLIC_URL}`, `Temporal UI: ${cfg.TEMPORAL_UI_URL}`];
    if (admin.created && admin.generatedPassword) {
      lines.push(`First admin created. Sign in as ${admin.email} with password ${admin.generatedPassword}`, '(shown once: change it under Change Password)');
    } else if (admin.created) {
      lines.push(`First admin created. Sign in as ${admin.email} with ADMIN_PASSWORD.`);
    } else {
      lines.push(`Sign in as ${admin.email} (or any user you created).`);
    }
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
    // The demo organization (embedded default only) is made beside the api's own work.
    const demo = demoWanted(cfg);
    if (demo.wanted) {
      const address = server.address();
      const port = address && typeof address === 'object' ? address.port : cfg.PORT;
      runDemo(cfg, `http://127.0.0.1:${port}`, demo.connections).catch((err: unknown) => {
        logger.error({ err }, 'demo organization not created');
        process.stdout.write(`[demo] not created: ${err instanceof Error ? err.message : String(err)}\n`);
      });
    } else if (cfg.PROVIDER === 'local' && cfg.NODE_ENV !== 'production' && cfg.DEMO) {
      process.stdout.write(`[demo] no demo organization: ${demo.why}\n`);
    }
  });

  const shutdown = () => {
    server.close(() => {
      void closeRunStores()
        .then(() => closeUserDirectory())
        .then(() => connection.close())
        .finally(() => void mongoose.disconnect().finally(() => process.exit(0)));
    });
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else logger.error({ err }, 'api failed to start');
  process.exit(1);
});
