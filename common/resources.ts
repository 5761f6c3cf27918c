// The naming rules of what onboarding creates for an organization, per provider: checked by the
// api before a workflow starts (a clear 400) and again by the activity that creates the
// resource (a workflow started some other way gets the same answer).

/** Azure Blob Storage's container rule: 3-63 lowercase letters, digits or single dashes. */
export const CONTAINER_NAME = /^(?=.{3,63}$)[a-z0-9]+(-[a-z0-9]+)*$/;
/** The local provider's database file name (WAREHOUSE_DIR/<name>.sqlite). */
export const LOCAL_DATABASE_NAME = /^[a-z0-9][a-z0-9-]{1,62}$/;
/** Azure SQL's rule: 1-128 characters, none of <>*%&:\/?, not ending with a dot or space. */
export const AZURE_DATABASE_NAME = /^(?=.{1,128}$)[^<>*%&:\\/?]*[^<>*%&:\\/?. ]$/;
/** Azure Data Factory's rule: 3-63 letters, digits or single hyphens, starting and ending alphanumeric. */
export const AZURE_FACTORY_NAME = /^(?=.{3,63}$)[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/;
/** The local engine's factory names: the spec's short-name rule (3-50 lowercase letters). */
export const LOCAL_FACTORY_NAME = /^[a-z]{3,50}$/;
