// The blob metadata an upload in progress carries: written by the api while the file arrives
// (api/resources/files/store.ts), read by the worker's loader (activities/csv/growing.ts).

/** Blob metadata key, and its value while the file is still arriving. */
export const UPLOAD_STATE = 'uploadstate';
export const UPLOAD_RECEIVING = 'receiving';
