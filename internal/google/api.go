package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"golang.org/x/oauth2"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// callTimeout bounds each call to Google, the token's included, within the run's budget.
const callTimeout = 30 * time.Second

// API is Search Console and URL Inspection for one property, as one service account.
type API struct {
	endpoint, property string
	// Email is the service account's client_email: the user Search Console must know.
	Email string
	http  *http.Client
}

// NewAPI returns the API of the site's google section, its requests through client (nil: the
// default one), authorized with a token the service account's key gets from its token_uri.
// ctx bounds the token requests.
func NewAPI(ctx context.Context, g config.Google, client *http.Client) (*API, error) {
	conf, err := loadKey(g.Credentials)
	if err != nil {
		return nil, err
	}
	base := &http.Client{Timeout: callTimeout, CheckRedirect: noRedirect}
	if client != nil {
		base.Transport = client.Transport
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, base)
	hc := conf.Client(ctx)
	// The token is set on every request the client makes, a redirect's too: none is followed.
	hc.CheckRedirect = noRedirect
	return &API{endpoint: strings.TrimRight(g.Endpoint, "/"), property: g.Property, Email: conf.Email, http: hc}, nil
}

// noRedirect refuses a redirect from Google's endpoint or the token endpoint: the access token
// (or the signed grant) goes to the endpoint configured and nowhere else, and Google's APIs do
// not redirect.
func noRedirect(req *http.Request, via []*http.Request) error {
	return fmt.Errorf("%s redirected to %s, which sitepush does not follow with Google's credentials: "+
		"set google.endpoint (or the key file's token_uri) to where it points", via[0].URL.Host, said(req.URL.Host))
}

// maxSaid bounds what an endpoint's answer may put in a message.
const maxSaid = 200

// said makes text an endpoint answered fit for a message: printable, on one line, at most
// maxSaid characters.
func said(text string) string {
	text = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, text)), " ")
	if r := []rune(text); len(r) > maxSaid {
		return string(r[:maxSaid]) + "…"
	}
	return text
}

// tokenRefusal says why the token endpoint refused the grant: the OAuth error it answered,
// clipped, or what its answer is when it is not one (its text is not shown: token_uri may name
// any server).
func tokenRefusal(re *oauth2.RetrieveError) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(re.Body, &e) == nil && e.Error != "" {
		return said(strings.TrimSpace(e.Error + ": " + e.Description))
	}
	return channel.Describe(re.Response.Header.Get("Content-Type"), re.Body)
}

// Site returns the service account's permission level on the property (siteOwner,
// siteFullUser, siteRestrictedUser, siteUnverifiedUser): Search Console's sites.get.
func (a *API) Site(ctx context.Context) (string, error) {
	var out struct {
		PermissionLevel string `json:"permissionLevel"`
	}
	err := a.call(ctx, http.MethodGet, a.siteURL(), nil, &out)
	return out.PermissionLevel, err
}

// SubmitSitemap submits a sitemap of the property: Search Console's sitemaps.submit.
func (a *API) SubmitSitemap(ctx context.Context, sitemap string) error {
	return a.call(ctx, http.MethodPut, a.siteURL()+"/sitemaps/"+url.PathEscape(sitemap), nil, nil)
}

// Inspect asks URL Inspection what Google knows of u: its index status.
func (a *API) Inspect(ctx context.Context, u string, now time.Time) (model.Inspection, error) {
	var out struct {
		InspectionResult struct {
			IndexStatusResult struct {
				CoverageState string `json:"coverageState"`
				IndexingState string `json:"indexingState"`
				LastCrawlTime string `json:"lastCrawlTime"`
			} `json:"indexStatusResult"`
		} `json:"inspectionResult"`
	}
	body, _ := json.Marshal(map[string]string{"inspectionUrl": u, "siteUrl": a.property})
	if err := a.call(ctx, http.MethodPost, a.endpoint+"/v1/urlInspection/index:inspect", body, &out); err != nil {
		return model.Inspection{}, err
	}
	r := out.InspectionResult.IndexStatusResult
	in := model.Inspection{CoverageState: r.CoverageState, IndexingState: r.IndexingState, CheckedAt: now.UTC()}
	if r.LastCrawlTime != "" {
		crawl, err := time.Parse(time.RFC3339Nano, r.LastCrawlTime)
		if err != nil {
			return in, fmt.Errorf("URL Inspection gave %s a lastCrawlTime %q that is not an RFC 3339 time", u, r.LastCrawlTime)
		}
		in.LastCrawl = crawl.UTC()
	}
	return in, nil
}

func (a *API) siteURL() string {
	return a.endpoint + "/webmasters/v3/sites/" + url.PathEscape(a.property)
}

// APIError is Google refusing a call: its HTTP status, and its message.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// ErrForbidden is a call Google refused for the service account's permission on the property.
var ErrForbidden = errors.New("forbidden")

func (e *APIError) Is(target error) bool {
	return target == ErrForbidden && e.Status == http.StatusForbidden
}

// call makes one call to Google, within callTimeout, and decodes its JSON answer into out.
func (a *API) call(ctx context.Context, method, u string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil {
			return fmt.Errorf("the token endpoint refused the service account %s (HTTP %d, %s): check that its key is current in Google Cloud (IAM → Service accounts → Keys)",
				a.Email, re.Response.StatusCode, tokenRefusal(re))
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		json.Unmarshal(data, &e)
		if e.Error.Message == "" {
			e.Error.Message = http.StatusText(resp.StatusCode)
		}
		return &APIError{Status: resp.StatusCode, Message: said(e.Error.Message)}
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("an answer that is not the JSON expected: %v", err)
	}
	return nil
}

// Forbidden says what the service account lacks when Google refuses it the property.
func (a *API) Forbidden() string {
	return fmt.Sprintf("the service account %s must be an owner or full user of the property %s in Search Console "+
		"(Settings → Users and permissions → Add user: %s, permission Owner or Full)", a.Email, a.property, a.Email)
}
