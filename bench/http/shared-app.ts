import { AppProcess } from './app-process';
import type { HttpAdapterName } from './http-adapter';

/**
 * The app process of one benchmark group, shared by its contenders: started on the first contender's setup,
 * stopped on the last one's teardown (the runner tears down every contender whose setup succeeded).
 */
export class SharedApp {
  private app?: Promise<AppProcess>;
  private users = 0;

  constructor(
    private readonly variant: string,
    readonly adapter: HttpAdapterName,
    private readonly redisUrl: string,
  ) {}

  /** The running app, started if no contender holds it. */
  async acquire(): Promise<AppProcess> {
    if (!this.app) {
      const app = new AppProcess(this.variant, this.adapter, this.redisUrl);
      this.app = app.start().then(() => app);
    }
    const app = await this.app.catch((error: unknown) => {
      this.app = undefined; // start() stopped the process; the next contender tries again
      throw error;
    });
    this.users++;
    return app;
  }

  /** Gives the app back; the last holder stops it. */
  async release(): Promise<void> {
    if (--this.users > 0 || !this.app) return;
    const app = await this.app;
    this.app = undefined;
    await app.stop();
  }
}
