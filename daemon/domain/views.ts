// A view (what the API sends) is mostly the row's columns as stored, plus a few converted
// ones (timestamps to ISO, JSON text parsed): `pick` copies the former, in the given order.

export function pick<T extends object, K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  const view = {} as Pick<T, K>;
  for (const key of keys) view[key] = row[key];
  return view;
}
