// Hands parsed items to the consumer's sinks and keeps the bundle-wide counts.
import type { MappingStats } from './components';
import { SinkFailure } from './errors';
import type { BundleSinks, Component, CryptoAsset, Dependency, Observation } from './types';

export class Collector {
  readonly stats: MappingStats = { invalidPurls: 0, skippedComponents: 0 };
  components = 0;
  cryptoAssets = 0;
  observations = 0;
  dependencies = 0;

  constructor(private readonly sinks: BundleSinks) {}

  async component(component: Component, path: string): Promise<void> {
    this.components++;
    await this.deliver(() => this.sinks.onComponent?.(component, { path }));
  }

  async cryptoAsset(asset: CryptoAsset, path: string): Promise<void> {
    this.cryptoAssets++;
    await this.deliver(() => this.sinks.onCryptoAsset?.(asset, { path }));
  }

  async observation(observation: Observation, path: string, line: number): Promise<void> {
    this.observations++;
    await this.deliver(() => this.sinks.onObservation?.(observation, { path, line }));
  }

  async dependency(dependency: Dependency, path: string): Promise<void> {
    this.dependencies++;
    await this.deliver(() => this.sinks.onDependency?.(dependency, { path }));
  }

  private async deliver(call: () => void | Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      throw new SinkFailure(error);
    }
  }
}
