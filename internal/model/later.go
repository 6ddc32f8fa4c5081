package model

// Later says what becomes of what a run leaves undone — URLs that failed for now, held back by a
// quota, left when its budget ended, pages it could not check — in the words every message about
// it uses. The state decides: one that keeps what a run leaves hands it to the next run; one that
// keeps nothing between runs (state: memory in `sitepush run`, the CI path) hands it to none, and
// the words say so instead of promising a run that will know nothing of it. The zero Later is a
// state that keeps.
type Later struct {
	// Forgets is set when nothing a run leaves is kept for a later run.
	Forgets bool
}

// What the messages of a state that keeps nothing say instead of a next run.
const (
	keptForNone = "kept for no later run (state: memory)"
	nothingKept = "nothing is kept for a later run (state: memory)"
)

// Again ends the message of URLs that failed for now — a 5xx, no answer, a wait past the run's
// budget — which stay due: "it is tried again next run".
func (l Later) Again() string {
	if l.Forgets {
		return nothingKept + ": run again to send it"
	}
	return "it is tried again next run"
}

// StayDue says that what (due URLs a channel could not send, plural) waits for the next run.
func (l Later) StayDue(what string) string {
	if l.Forgets {
		return what + " are " + keptForNone
	}
	return what + " stay due for the next run"
}

// Held ends what a quota held back ("5 due URLs held back"): sent by the first run after the
// quota is back.
func (l Later) Held(what string) string {
	if l.Forgets {
		return what + ", and " + keptForNone + ": run again after that"
	}
	return what + ", for the first run after that"
}

// Left ends what a run left undone ("3 deliveries are left", "2 suspects left"): the next run
// takes it up.
func (l Later) Left(what string) string {
	if l.Forgets {
		return what + ", and " + keptForNone
	}
	return what + " for the next run"
}

// ReadOn says what becomes of sitemaps read only in part.
func (l Later) ReadOn() string {
	if l.Forgets {
		return "what was not read is " + keptForNone
	}
	return "the next run takes the sitemaps read whole and reads on from there"
}

// Checked says what becomes of pages a run could not check (content checks, a feed's preflight
// the site did not answer).
func (l Later) Checked() string {
	if l.Forgets {
		return keptForNone
	}
	return "checked again next run"
}

// Backlog says what becomes of the n URLs a first run's backlog leaves out. A state that keeps
// nothing makes every run a first run: a lastmod within the backlog sends them.
func (l Later) Backlog(n int) string {
	if l.Forgets {
		return "every run is a first run with state: memory: a lastmod within the backlog sends " + them(n)
	}
	return "taken as known: a change sends " + them(n)
}

// Baseline says what becomes of the n URLs a baseline lists unchanged.
func (l Later) Baseline(n int) string {
	if l.Forgets {
		return "a change against a later run's baseline sends " + them(n)
	}
	return "taken as known: a change sends " + them(n)
}

// FirstRunOver says what becomes of what (URLs, plural) a channel's first run, which needs the
// sitemaps read, does not take: the site's next run over the sitemaps does.
func (l Later) FirstRunOver(what string) string {
	if l.Forgets {
		return what + " are " + keptForNone
	}
	return what + " wait for the site's next run over them"
}

// Suspects says what becomes of n pages whose content could not be checked: they stay suspects,
// checked again next run.
func (l Later) Suspects(n int) string {
	if l.Forgets {
		return keptForNone
	}
	if n == 1 {
		return "it stays a suspect, " + l.Checked()
	}
	return "they stay suspects, " + l.Checked()
}

// them is the pronoun of n things.
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// UntilFixed says what becomes of URLs that failed for a fault the user fixes (a key).
func (l Later) UntilFixed() string {
	if l.Forgets {
		return nothingKept + ": run again once it is fixed"
	}
	return "the URLs stay due until then"
}

// First says what becomes of what (URLs that failed, plural) once the engine answers again.
func (l Later) First(what string) string {
	if l.Forgets {
		return nothingKept + ": run again to send " + what
	}
	return what + " go first next run"
}
