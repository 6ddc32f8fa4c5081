-- A URL taken as known without being sent — a first run's backlog, a feed's first run, a run's
-- baseline — was kept as outcome 'skipped' with the time it was taken as its delivery, and an
-- attempt. It was never sent: its outcome is now the reason ('backlog', which every such URL
-- before this migration is counted as, the cause not kept), no delivery time, no attempt; when it
-- was taken as known stays in last_attempt.
UPDATE deliveries SET outcome = 'backlog', delivered_at = NULL, attempts = 0 WHERE outcome = 'skipped';
