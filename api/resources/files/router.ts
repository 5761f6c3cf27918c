// /api/v1/pipeline (beside the pipelines router): the files routes, each with its role and
// validation; the logic is ./service.ts. Uploads are multipart and read as a stream by the
// service (./multipart.ts), so their fields are checked there as they arrive.
import { Router } from 'express';
import type { z } from 'zod';
import { UPLOAD_MESSAGES } from '../../../common/constants';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { fileParams, listFilesParams, listFilesQuery, tableParams } from './schemas';
import { createFilesService } from './service';

export { UPLOAD_MESSAGES };
export { cleanSpoolDir } from './multipart';

export function pipelineFilesRouter(deps: AppDeps): Router {
  const router = Router();
  const files = createFilesService(deps);
  const anyone = auth('admin', 'user');

  router.post('/file-upload', anyone, async (req, res) => {
    const { fileUrls, files: stored } = await files.uploadFiles(req.user!, req);
    // The spec's answer: the message is an object here.
    res.status(200).json({ status: true, message: { fileUrls, message: UPLOAD_MESSAGES.uploaded }, data: { fileUrls, files: stored } });
  });

  router.get('/list-files/:orgId', anyone, validate({ params: listFilesParams, query: listFilesQuery }), async (req, res) => {
    const { orgId } = req.params as z.infer<typeof listFilesParams>;
    const { page } = res.locals.query as z.infer<typeof listFilesQuery>;
    ok(res, 'Files retrieved successfully', await files.listFiles(req.user!, orgId, page));
  });

  /** A new file (multipart), or one stored before named by uploadId (JSON or urlencoded; or multipart fields without a file). */
  router.post('/saveCSV', anyone, async (req, res) => {
    const namesStoredFile = !req.is('multipart/form-data') && req.body && typeof req.body === 'object' && 'uploadId' in req.body;
    const saved = namesStoredFile ? await files.saveStored(req.user!, req.body as Record<string, unknown>) : await files.saveSent(req.user!, req);
    ok(res, saved.message, saved.data, saved.status);
  });

  router.delete('/files/:orgId/:uploadId', anyone, validate({ params: fileParams }), async (req, res) => {
    const { orgId, uploadId } = req.params as z.infer<typeof fileParams>;
    ok(res, UPLOAD_MESSAGES.fileDeleted, await files.deleteFile(req.user!, orgId, uploadId));
  });

  router.delete('/tables/:orgId/:tableName', anyone, validate({ params: tableParams }), async (req, res) => {
    const { orgId, tableName } = req.params as z.infer<typeof tableParams>;
    const deleted = await files.deleteTable(req.user!, orgId, tableName);
    ok(res, deleted.message, deleted.data, deleted.status);
  });

  router.get('/saveCSV/:uploadId', anyone, async (req, res) => {
    ok(res, 'CSV save status', await files.saveStatus(req.user!, req.params.uploadId, req.query.orgId));
  });

  return router;
}
