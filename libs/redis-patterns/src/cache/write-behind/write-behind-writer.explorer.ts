import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { discoverMethods } from '../../core/advice/discover-methods';
import type { WriteBehindChange } from './queue-flusher';
import { WRITE_BEHIND_WRITER } from './write-behind-writer.decorator';
import { WriteBehindService } from './write-behind.service';

/** Registers every `@WriteBehindWriter` method at module init (a second writer of one queue fails startup). */
@Injectable()
export class WriteBehindWriterExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly writeBehind: WriteBehindService,
  ) {}

  onModuleInit(): void {
    const found = discoverMethods(this.discovery, this.scanner, (method) => Reflect.hasOwnMetadata(WRITE_BEHIND_WRITER, method));
    for (const { instance, method } of found) {
      for (const queue of Reflect.getOwnMetadata(WRITE_BEHIND_WRITER, method) as string[]) {
        this.writeBehind.registerWriter(
          queue,
          (changes: ReadonlyArray<WriteBehindChange>, signal: AbortSignal) => method.call(instance, changes, signal) as Promise<void>,
        );
      }
    }
  }
}
