import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { checkCampaignArguments, resolveCampaignOptions, stepDownMarginMs } from './campaign.options';

const PATH = '@RunOnLeader(Reports.run)';

describe('campaign options', () => {
  it('defaults to a 10 s lease renewed every third of it', () => {
    expect(resolveCampaignOptions(undefined, PATH)).toEqual({ ttlMs: 10_000, renewEveryMs: 3333 });
    expect(resolveCampaignOptions({ ttlMs: 3000 }, PATH)).toEqual({ ttlMs: 3000, renewEveryMs: 1000 });
    expect(resolveCampaignOptions({ ttlMs: 1000, renewEveryMs: 500 }, PATH)).toEqual({ ttlMs: 1000, renewEveryMs: 500 });
  });

  it.each([
    [{ ttlMs: 99 }, `${PATH}.ttlMs`],
    [{ ttlMs: 1500.5 }, `${PATH}.ttlMs`],
    [{ ttlMs: '1000' }, `${PATH}.ttlMs`],
    [{ ttlMs: 1000, renewEveryMs: 501 }, `${PATH}.renewEveryMs`],
    [{ renewEveryMs: 9 }, `${PATH}.renewEveryMs`],
    [{ ttlMS: 1000 }, `${PATH}.ttlMS`],
    ['fast', PATH],
  ])('rejects %p naming %s', (options, option) => {
    const error = (() => {
      try {
        return resolveCampaignOptions(options, PATH);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(error).toMatchObject({ option });
  });

  it('fails the 0.x name leaseMs naming ttlMs, for a decorator and for a call', () => {
    const attempt = (): unknown => resolveCampaignOptions({ leaseMs: 5000 }, PATH);
    expect(attempt).toThrow(InvalidOptionsError);
    expect(attempt).toThrow(expect.objectContaining({ option: `${PATH}.leaseMs` }));
    expect(attempt).toThrow('`ttlMs` (`leaseMs` was renamed in 1.0)');
    expect(() => checkCampaignArguments('reports', { leaseMs: 5000 })).toThrow(
      expect.objectContaining({ argument: 'options.leaseMs', message: expect.stringContaining('`ttlMs`') }),
    );
  });

  it('fails a call with InvalidArgumentError naming the argument', () => {
    expect(() => checkCampaignArguments('', undefined)).toThrow(expect.objectContaining({ argument: 'resource' }));
    expect(() => checkCampaignArguments('user:{42} *', undefined)).toThrow(InvalidArgumentError);
    expect(() => checkCampaignArguments('reports', { ttlMs: 10 })).toThrow(expect.objectContaining({ argument: 'options.ttlMs' }));
    expect(checkCampaignArguments('billing.nightly', { ttlMs: 600 })).toEqual({
      resource: 'billing.nightly',
      settings: { ttlMs: 600, renewEveryMs: 200 },
    });
  });

  it('steps down before the lease could expire: drift allowance plus room for a late timer, capped', () => {
    expect(stepDownMarginMs(1000, 0.01)).toBe(10 + 2 + 50);
    expect(stepDownMarginMs(10_000, 0.01)).toBe(100 + 2 + 100);
    expect(stepDownMarginMs(100, 0)).toBe(2 + 5);
  });
});
