/** Parses an INFO reply (`field:value` lines, `#` section headers) into a flat map. */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/**
 * Parses one INFO value made of `key=value` pairs separated by commas — a `cmdstat_*` line of `INFO commandstats`
 * (`calls=3,usec=45,…`) or a `slaveN` line of `INFO replication` (`ip=…,port=…,state=online,offset=…,lag=0`).
 */
export function parseInfoFields(value: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const pair of value.split(',')) {
    const equals = pair.indexOf('=');
    if (equals > 0) fields[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return fields;
}
