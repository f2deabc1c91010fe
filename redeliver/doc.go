// Package redeliver brings back webhook deliveries the bot missed. GitHub
// never redelivers on its own: a delivery answered 5xx, or not answered at
// all, during a database outage or a restart stays failed in the App's
// delivery log. Pass reads that log (GET /app/hook/deliveries) back to a
// point in time, and for every delivery GUID with no successful attempt that
// the store has not recorded, asks GitHub to deliver it again
// (POST /app/hook/deliveries/{id}/attempts), at most a bounded number per
// pass, pausing between requests.
//
// `bot redeliver --since 2h` runs one pass on demand.
//
// Of the project it imports ghapp (the attempt type) and webhook (the key a
// delivery is recorded under) only; the log and the store are small
// interfaces satisfied by *ghapp.App and *store.Store.
package redeliver
