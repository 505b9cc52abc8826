/** A whole cluster for a test or bench: a fresh database, the fakes, the linked users and N started instances. */
import { createClusterDatabase, type ClusterDatabase } from './cluster-database.js';
import { ClusterFakes, USERS, discordUserId, slackUserId } from './cluster-fakes.js';
import { ClusterInstances } from './cluster-instances.js';
import { ClusterWorkload } from './cluster-workload.js';

export interface LaunchedCluster {
  database: ClusterDatabase;
  fakes: ClusterFakes;
  cluster: ClusterInstances;
  workload: ClusterWorkload;
  /** Stops the instances, closes the fakes and drops the database (safe after a failed launch). */
  close(): Promise<void>;
}

/** Starts `instances` processes on a new database of the server `serverUrl`; on failure everything is closed again. */
export async function launchCluster(serverUrl: string, instances: number, shards = 2): Promise<LaunchedCluster> {
  const [database, fakes] = await Promise.all([createClusterDatabase(serverUrl), ClusterFakes.start({ shards })]);
  const cluster = new ClusterInstances(fakes, database);
  const close = async (): Promise<void> => {
    await cluster.stop();
    await fakes.close();
    await database.drop();
  };
  try {
    for (let person = 0; person < USERS; person++) {
      const { userId } = await database.stores.users.createUser(`person${person}`);
      await database.stores.users.link('discord', discordUserId(person), userId);
      await database.stores.users.link('slack', slackUserId(person), userId);
    }
    await cluster.start(instances);
  } catch (error) {
    await close();
    throw error;
  }
  return { database, fakes, cluster, workload: new ClusterWorkload(fakes, cluster, database), close };
}
