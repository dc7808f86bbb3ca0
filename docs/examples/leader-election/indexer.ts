import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { LeaderElection } from 'nestjs-redis-patterns';

/** Stands in for your work: it runs while `signal` is not aborted, and writes with the fencing token. */
export interface IndexerWork {
  start(signal: AbortSignal, fencingToken: number): Promise<void>;
}

@Injectable()
export class IndexerLeadership implements OnApplicationBootstrap {
  constructor(
    private readonly election: LeaderElection,
    private readonly indexer: IndexerWork,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // #region campaign
    await this.election.campaign('indexer', { ttlMs: 10_000 }); // resolves after the first attempt: true if leading
    this.election.changes('indexer').subscribe((change) => {
      if (change.type === 'gained') void this.indexer.start(change.term.signal, change.term.fencingToken);
    });
    // #endregion campaign
  }
}
