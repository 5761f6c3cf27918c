// Constants and messages the api answers and the web app shows: written once, used by both
// (web/tsconfig.json includes this file, as it does common/validation.ts).

/** Rows per page of every paged list (users, pipeline runs). */
export const PAGE_SIZE = 10;

/** What the file upload and CSV save answer (spec section 7). */
export const UPLOAD_MESSAGES = {
  uploaded: 'File uploaded successfully!',
  uploadFailed: 'File upload failed.',
  saved: 'CSV saved successfully!',
  saveFailed: 'Failed to save CSV.',
  listFailed: 'Failed to retrieve file list.',
  onlyCsv: 'Only CSV files (text/csv) can be uploaded.',
  uploadNotFound: 'File not found',
  beingSaved: 'This file is being saved: try again once the save has finished.',
  fileOrUpload: 'Send either a file or the uploadId of a stored file, not both.',
  fileDeleted: 'File deleted',
  tableDeleted: 'Table deleted',
  tableBeingDeleted: 'The table is still being deleted.',
} as const;
