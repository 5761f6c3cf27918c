// Where the local provider keeps an organization's SQL database (common/org-database.ts).
export { localDatabaseFile } from '../../common/org-database';
