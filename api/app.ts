// Builds the Express app from its dependencies; connecting and listening happen in main.ts.
import express, { type Express } from 'express';
import helmet from 'helmet';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import passport from 'passport';
import type { AppDeps } from './deps';
import { configurePassport } from './lib/auth';
import { errorHandler, methodNotAllowed, notFoundHandler, optionsAllowed } from './lib/errors';
import { authRouter } from './resources/auth/router';
import { healthRouter } from './resources/health/router';
import { openApiDocument, type Mount } from './openapi';
import { onboardRouter } from './resources/onboarding/router';
import { pipelinesRouter } from './resources/pipelines/router';
import { consolidationRouter } from './resources/consolidation/router';
import { tablesRouter } from './resources/tables/router';
import { reportsRouter } from './resources/reports/router';
import { packsRouter } from './resources/packs/router';
import { gettingStartedRouter } from './resources/getting-started/router';
import { pipelineFilesRouter } from './resources/files/router';
import { connectorMounts } from './resources/connectors/router';
import { freshnessRouter } from './resources/freshness/router';
import { alertsRouter } from './resources/alerts/router';
import { operationsRouter } from './resources/operations/router';
import { docsRouter } from './resources/docs/router';
import { contactRouter } from './resources/contact/router';
import { organizationsRouter } from './resources/organizations/router';
import { usersRouter } from './resources/users/router';

export const WEB_DIST = join(__dirname, '..', 'web', 'dist');

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For is believed only from the configured proxies (default none): req.ip keys the rate limits.
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          // Dashboards are embedded BI reports from their own origins.
          'frame-src': ["'self'", 'https:'],
          'img-src': ["'self'", 'data:', 'https:'],
        },
      },
    }),
  );
  if (deps.config.CORS_ORIGINS) {
    const allowed = new Set(deps.config.CORS_ORIGINS.split(',').map((s) => s.trim()));
    app.use((req, res, next) => {
      const origin = req.headers.origin;
      if (origin && allowed.has(origin)) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Vary', 'Origin');
        res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
      }
      if (req.method === 'OPTIONS') return void res.sendStatus(204);
      next();
    });
  }
  // Every body is read by its route (api/lib/route.ts), within the limit it declares; a signed
  // webhook's as the raw bytes that came (`body.raw`).
  configurePassport(deps.config);
  app.use(passport.initialize());

  const api = express.Router();
  // One router per resource; the OpenAPI document is generated from these same routers (their
  // paths, the zod schemas their validate() checks, the roles their auth() requires).
  const mounts: Mount[] = [
    ['/health', healthRouter(deps)],
    ['/auth', authRouter(deps)],
    ['/onboard', onboardRouter(deps)],
    ['/pipeline', pipelinesRouter(deps)],
    ['/pipeline', pipelineFilesRouter(deps)],
    // One router per connector (common/connectors), at /quickbooks, /sage, /netsuite.
    ...connectorMounts(deps),
    ['/user', usersRouter(deps)],
    ['/organization', organizationsRouter(deps)],
    ['/contact-us', contactRouter(deps)],
    ['/consolidation', consolidationRouter(deps)],
    ['/tables', tablesRouter(deps)],
    ['/reports', reportsRouter(deps)],
    ['/reports', packsRouter(deps)],
    ['/getting-started', gettingStartedRouter(deps)],
    ['/freshness', freshnessRouter(deps)],
    ['/alerts', alertsRouter(deps)],
    ['/operations', operationsRouter(deps)],
    ['/docs', docsRouter()],
  ];
  // OPTIONS answers the methods a path really has (a literal path shadows /:id), as a 405's Allow does.
  api.use(optionsAllowed(api));
  let document: unknown;
  api.get('/openapi.json', (_req, res) => void res.json((document ??= openApiDocument(mounts))));
  for (const [path, router] of mounts) api.use(path, router);
  api.use(methodNotAllowed(api));
  app.use('/api/v1', api);

  // The built web app on the same origin; client-side routes fall back to index.html.
  if (existsSync(join(WEB_DIST, 'index.html'))) {
    app.use(express.static(WEB_DIST, { index: false, maxAge: '1h' }));
    app.get(/^(?!\/api\/).*/, (_req, res) => res.sendFile(join(WEB_DIST, 'index.html')));
  }
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
