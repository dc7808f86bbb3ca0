import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { checkCampaignArguments, resolveCampaignOptions, stepDownMarginMs } from './campaign.options';

const PATH = '@RunOnLeader(Reports.run)';

describe('campaign options', () => {
  it('defaults to a 10 s lease renewed every third of it', () => {
    expect(resolveCampaignOptions(undefined, PATH)).toEqual({ leaseMs: 10_000, renewEveryMs: 3333 });
    expect(resolveCampaignOptions({ leaseMs: 3000 }, PATH)).toEqual({ leaseMs: 3000, renewEveryMs: 1000 });
    expect(resolveCampaignOptions({ leaseMs: 1000, renewEveryMs: 500 }, PATH)).toEqual({ leaseMs: 1000, renewEveryMs: 500 });
  });

  it.each([
    [{ leaseMs: 99 }, `${PATH}.leaseMs`],
    [{ leaseMs: 1500.5 }, `${PATH}.leaseMs`],
    [{ leaseMs: '1000' }, `${PATH}.leaseMs`],
    [{ leaseMs: 1000, renewEveryMs: 501 }, `${PATH}.renewEveryMs`],
    [{ renewEveryMs: 9 }, `${PATH}.renewEveryMs`],
    [{ leaseMS: 1000 }, `${PATH}.leaseMS`],
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

  it('fails a call with InvalidArgumentError naming the argument', () => {
    expect(() => checkCampaignArguments('', undefined)).toThrow(expect.objectContaining({ argument: 'role' }));
    expect(() => checkCampaignArguments('user:{42} *', undefined)).toThrow(InvalidArgumentError);
    expect(() => checkCampaignArguments('reports', { leaseMs: 10 })).toThrow(expect.objectContaining({ argument: 'options.leaseMs' }));
    expect(checkCampaignArguments('billing.nightly', { leaseMs: 600 })).toEqual({
      role: 'billing.nightly',
      settings: { leaseMs: 600, renewEveryMs: 200 },
    });
  });

  it('steps down before the lease could expire: drift allowance plus room for a late timer, capped', () => {
    expect(stepDownMarginMs(1000, 0.01)).toBe(10 + 2 + 50);
    expect(stepDownMarginMs(10_000, 0.01)).toBe(100 + 2 + 100);
    expect(stepDownMarginMs(100, 0)).toBe(2 + 5);
  });
});
