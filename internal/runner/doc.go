// Package runner is one site run: the lease, the sitemaps read and compared with what the state
// knows, and each channel's delivery of what is due, recorded as it happens; the one place where
// the rules of a run live (budget, order, isolation of channels). It sees the state only through
// State, so that it builds for any target.
//
// # A run, step by step
//
// Run (runner.go) takes the site's lease (lease.go) and starts the execution record — a dry run
// does neither — and run goes through five steps. The first four happen a sitemap at a time, as
// the reader ends each (collector.done, endFile), or a piece at a time for a sitemap too big to
// hold (collector.add):
//
//  1. read (read.go, carry.go; Runner.read): the chosen URLs, or the sitemaps — first the pages
//     of a read over several runs that earlier runs read whole (carryOn), then the sitemaps
//     not read yet; a sitemap unchanged since a settled run is not read again (memos.Known,
//     unchanged).
//  2. tell pages apart (seen.go; collector.tellApart): each URL once in the run, in hash order;
//     those out of scope only counted.
//  3. merge with what was known (merge.go, lookup.go, memos.go; collector.merge, lookUp): a
//     page as its sitemap's memo remembers it is no news; the others are looked up in the
//     state's catalogue a batch at a time, which records the new and changed ones.
//  4. choose what is due (choose.go, mode.go; collector.choose): isDue on each channel, under
//     the run's rule (mode.rule); outstanding deliveries make a remembered page due too
//     (queueOutstanding).
//  5. hand to channels (deliver.go, report.go; Runner.deliverAll): each channel in turn gets its
//     queue — its first run cut to its backlog setting (collector.backlog) — and every answer
//     is recorded as it comes (recorder); a dry run shows what each would send instead
//     (preview). Around them, the run's followers (follow.go; Runner.Followers): before, they
//     are told of the sitemaps the run found new or changed (memos.changed); after, they follow
//     up the URLs earlier runs sent (Search Console, in internal/google, which the runner does
//     not import).
//
// Then what the run read is remembered for the runs after (memos.save), the record summed up
// (status), and a site whose budget never lets it get anywhere failed (stall).
//
// A read over several runs hands what it takes from memory to the channels before it reads on
// (carryOn: steps 2–5 for those pages first), so that a site whose sitemaps take several runs
// to read delivers as it goes.
//
// The options choose the mode of a run once, as the read begins (modeOf): whether it writes,
// reads the sitemaps or takes chosen URLs, uses and keeps memos, and its rule of what is due. The
// steps ask the mode; only Run, before them, asks the options (a dry run takes no lease).
//
// # Glossary
//
//   - page: a URL in scope with its lastmod; its hash (URLHash) names it in the state and in
//     memos, which keep 16 bytes a page (pageBytes).
//   - catalogue: the URLs the state knows of a site, with their delivery state on each channel.
//   - known (on a channel): the channel had the URL — delivered, failed, or recorded without
//     being sent. A channel none of whose URLs read is known has its first run for the site,
//     where the backlog setting applies.
//   - due: to be delivered on a channel in this run (isDue, DueReason, mode.rule).
//   - ineligible (on a channel): a preflight (channel/preflight) held the URL back — noindex,
//     another canonical, a redirect, an error, robots.txt — and did not send it; due again when
//     its lastmod changes or preflightAfter has passed (DueRecheck), at the next run after a 5xx.
//   - outstanding delivery: a delivery state that makes a URL due whatever its sitemap says — its
//     last attempt failed, resubmitAfter has passed, or a URL held back as ineligible is to be
//     checked again (model.Pending, from State.PendingDeliveries).
//   - memo: what runs remember of a sitemap — its validators and its pages. Settled: its pages
//     were settled on every channel of a scope, so a page as it remembers it is no news.
//     Unfinished: the sitemap was read whole by a read of the site's sitemaps that a run's end
//     cut short; the runs after take its pages from memory until the read reaches its end.
//   - scope: what a memo's pages were settled for — the site's sitemaps and filter, and the
//     channels (scopeOf).
//   - listed, unseen: a sitemap's pages once each, and those of them no earlier sitemap of the
//     run listed (tellApart).
//   - budget: what a run may spend (runBudget, a Worker invocation's subrequests); a run it stops
//     leaves the rest to the next run. A stall: a run its budget stopped before it got anywhere.
//   - lease: one run of a site at a time, across processes. A state that writes it only once
//     the run has work (LazyLease: the Worker's KV) is told so before step 5 (Runner.working).
package runner
