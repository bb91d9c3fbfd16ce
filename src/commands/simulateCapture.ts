/** `simulate --capture FILE --minutes N`: the recorder against the simulator just started, into FILE. */
import { recordToFile } from "../lab/capture/recordToFile.js";
import type { SimulatorHandle } from "../sim/startSimulator.js";
import { createVenueLimiters } from "../venue/limiters.js";
import { RestClient } from "../venue/rest.js";
import { Signer } from "../venue/signer.js";
import { SupplyApi } from "../venue/supplyApi.js";
import type { CommandIO } from "./command.js";

export async function captureSimulator(sim: SimulatorHandle, file: string, minutes: number, io: CommandIO): Promise<void> {
  const signer = new Signer({ secret: sim.secret, accountId: sim.accountId, headerPrefix: "service" });
  const limiters = createVenueLimiters({
    public_per_second: 10,
    claims_per_second: 5,
    admin_orders_per_second: 10,
    account_reads_per_second: 3,
    orders_per_second: 10,
  });
  const rest = new RestClient({ baseUrl: sim.baseUrl, signer, timeoutMs: 5_000, limiters });
  try {
    const stats = await recordToFile(
      {
        file,
        venue: sim.baseUrl,
        writer: "simulate",
        minutes,
        rest,
        forecast: { supply: new SupplyApi(rest), intervalMs: 30_000 },
        publicUrl: `${sim.wsUrl}/ws/stream/${sim.accountId}`,
      },
      io.signal,
    );
    io.stderr.write(`liquidator simulate: ${stats.events} events captured to ${file}\n`);
  } finally {
    await rest.close();
    await limiters.stop();
  }
}
