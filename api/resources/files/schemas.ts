// The files resource's request schemas. Uploads are multipart and read as a stream
// (./service.ts checks each field with the same rules as it arrives: checkOrgId is orgIdSchema,
// checkTableName is common/validation's tableName); these schemas are those rules gathered per
// request, for api/openapi.ts. The path and query schemas are what the routes validate.
import { messages, OBJECT_ID_RE, objectId, TABLE_NAME_RE, tableName as tableNameRule } from '../../../common/validation';
import { pageOrFirst } from '../../lib/list-query';
import { orgIdSchema } from '../../lib/organization';
import { z } from '../../lib/zod';

const file = z.string().openapi({ type: 'string', format: 'binary', description: 'A CSV file (text/csv, UTF-8)' });
/** The table-name rule (a refinement adds the reserved names, which JSON Schema cannot say: described in words). */
const tableName = tableNameRule.openapi({ type: 'string', pattern: TABLE_NAME_RE.source, description: 'A table name (not one LedgerFlow reserves for its own tables)' });
export const INVALID_UPLOAD_ID = 'Invalid upload ID';
/** A stored file's id (the file list's id): malformed 400 naming it, well formed but unknown 404. */
export const uploadIdRule = objectId(INVALID_UPLOAD_ID, 'Upload ID is required');
const uploadId = uploadIdRule.openapi({ description: 'A stored file (an upload id from the file list)' });

/** POST /pipeline/file-upload (multipart): up to 10 files for one organization. */
export const uploadForm = z.object({ organizationId: orgIdSchema, file });

/** POST /pipeline/saveCSV (multipart): a new file, or a stored one by uploadId. */
export const saveForm = z.object({ orgID: orgIdSchema, tableName, file: file.optional(), uploadId: uploadId.optional() });

/** POST /pipeline/saveCSV (JSON): a stored file saved again. */
export const saveStoredBody = z.object({ orgID: orgIdSchema, uploadId, tableName });

/** GET /pipeline/list-files/:orgId?page=N: 10 files per page, page 1 (the newest) by default; as the user list's page. */
export const listFilesParams = z.object({ orgId: orgIdSchema });
export const listFilesQuery = z.object({ page: pageOrFirst() });

/** DELETE /pipeline/files/:orgId/:uploadId */
export const fileParams = z.object({ orgId: orgIdSchema, uploadId });

/** GET /pipeline/saveCSV/:uploadId?orgId= (optional: the organization the upload was recorded for). */
export const saveStatusParams = z.object({ uploadId });
export const saveStatusQuery = z.object({ orgId: z.preprocess((v) => (v === '' ? undefined : v), orgIdSchema.optional()).openapi({ type: 'string', pattern: OBJECT_ID_RE.source }) });

/** DELETE /pipeline/tables/:orgId/:tableName (a reserved name answers 400, in the service). */
export const tableParams = z.object({ orgId: orgIdSchema, tableName: z.string().trim().regex(TABLE_NAME_RE, messages.tableName) });
