// Types of scenario.cjs, for the TypeScript consumer apps.
declare const scenario: {
  runScenario(options: {
    label: string;
    startApp: (
      url: string,
    ) => Promise<{ getUrl(): Promise<string>; get<T>(token: abstract new (...args: never[]) => T): T; close(): Promise<void> }>;
    LockService: abstract new (...args: never[]) => unknown;
    startTestRedis: (options?: { password?: string }) => Promise<{ url: string; port: number; stop(): Promise<void> }>;
    Redis: new (url: string) => unknown;
  }): Promise<void>;
};
export = scenario;
