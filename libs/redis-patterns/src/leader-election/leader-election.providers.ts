import type { Provider } from '@nestjs/common';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const LEADER_ELECTION_PROVIDERS: Provider[] = [];
