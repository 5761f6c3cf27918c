// Records in Mongo written at workflow state transitions.
import mongoose from 'mongoose';
import { Organization } from '../../common/models/organization';
import { fail } from '../../common/failures';

export interface RecordOnboardingStepInput {
  orgId: string;
  /** Onboarding fields to set on the organization, e.g. { containerName }. */
  fields: Record<string, string>;
}

export function createRecordActivities() {
  return {
    async recordOnboardingStep({ orgId, fields }: RecordOnboardingStepInput): Promise<void> {
      if (!mongoose.isValidObjectId(orgId)) throw fail.validation('Organization ID is missing');
      const set = Object.fromEntries(Object.entries(fields).map(([k, v]) => [`onboarding.${k}`, v]));
      const res = await Organization.updateOne({ _id: orgId }, { $set: set });
      if (res.matchedCount === 0) throw fail.notFound(`Organization ${orgId} not found`);
    },
  };
}

export type RecordActivities = ReturnType<typeof createRecordActivities>;
