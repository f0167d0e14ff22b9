package client

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
)

// conversationWire is one turn, only what is counted: no text is kept.
type conversationWire struct {
	ID               wireSeen `json:"id"`
	ResponseType     wireStr  `json:"responseType"`
	ResolutionStatus wireStr  `json:"resolutionStatus"`
}

// conversationsWire is the wire form of one page of GET /assistant.
type conversationsWire struct {
	Rows       []conversationWire `json:"conversations"`
	NextCursor wireStr            `json:"nextCursor"`
	HasMore    wireBool           `json:"hasMore"`
}

var conversationRowType = reflect.TypeFor[conversationWire]()

// conversationsPage is one decoded page of conversations.
type conversationsPage struct {
	counts     map[ConversationKey]int
	turns      int
	nextCursor *string
	hasMore    bool
	skipped    Skipped
}

// WalkConversations counts every assistant conversation turn of a project
// in r by response type and resolution, following the cursor: one request
// per PageSize turns, all or nothing. More than MaxPages pages is
// ErrTooManyPages, a cursor already seen a *DecodeError; hasMore without a
// nextCursor ends the walk Incomplete. Malformed turns are skipped.
func (c *Client) WalkConversations(ctx context.Context, projectID string, r DateRange, o CursorWalkOptions) (*ConversationsResult, error) {
	ep := EndpointConversations
	fail := func(page int, err error) error {
		rng := "all dates"
		if r != (DateRange{}) {
			rng = r.String()
		}
		if page < 0 {
			return fmt.Errorf("%s walk of project %q %s: %w", ep, projectID, rng, err)
		}
		return fmt.Errorf("%s walk of project %q %s: page %d: %w", ep, projectID, rng, page+1, err)
	}
	switch {
	case o.PageSize < 0 || o.PageSize > MaxConversationsPageSize:
		return nil, fail(-1, fmt.Errorf("page size %d outside 1..%d", o.PageSize, MaxConversationsPageSize))
	case o.MaxPages < 0:
		return nil, fail(-1, fmt.Errorf("negative MaxPages %d", o.MaxPages))
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultConversationsPageSize
	}
	if o.MaxPages == 0 {
		o.MaxPages = DefaultConversationsMaxPages
	}
	p, err := segment("project id", projectID)
	if err != nil {
		return nil, fail(-1, err)
	}
	res := &ConversationsResult{Range: r, Counts: make(map[ConversationKey]int)}
	seen := make(map[string]bool)
	cursor := ""
	empty := 0 // pages in a row without a turn that said hasMore
	for i := 0; ; i++ {
		if i >= o.MaxPages {
			return nil, fail(-1, fmt.Errorf("more than %d pages of %d turns (%w): use a shorter window or raise --conversations.max-pages",
				o.MaxPages, o.PageSize, ErrTooManyPages))
		}
		v := rangeValues(r)
		v.Set("limit", strconv.Itoa(o.PageSize))
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		ans, err := c.do(ctx, &call{endpoint: ep, method: "GET", path: ep.at(p), query: v})
		if err != nil {
			return nil, fail(i, err)
		}
		page, err := decodeConversations(ans.body)
		if err != nil {
			return nil, fail(i, err)
		}
		res.Pages++
		res.Turns += page.turns
		for k, n := range page.counts {
			res.Counts[k] += n
		}
		res.Skipped.merge(page.skipped)
		if !page.hasMore {
			return res, nil
		}
		if page.turns == 0 && page.skipped.Total() == 0 {
			if empty++; empty >= MaxEmptyPages {
				return nil, fail(i, ErrEmptyPages)
			}
		} else {
			empty = 0
		}
		switch {
		case page.nextCursor == nil || *page.nextCursor == "":
			res.Incomplete = true
			return res, nil
		case seen[*page.nextCursor]:
			return nil, fail(i, &DecodeError{Endpoint: ep, Field: "nextCursor", Reason: "cursor " + quoteShort(*page.nextCursor) + " repeats an earlier one"})
		}
		cursor = *page.nextCursor
		seen[cursor] = true
	}
}

// decodeConversations decodes and validates one page of conversations.
func decodeConversations(body []byte) (*conversationsPage, error) {
	ep := EndpointConversations
	var w conversationsWire
	if err := decodePage(ep, body, &w, "conversations", conversationRowType); err != nil {
		return nil, err
	}
	if err := requireRows(ep, "conversations", w.Rows); err != nil {
		return nil, err
	}
	page := &conversationsPage{counts: make(map[ConversationKey]int, 4)}
	var err error
	if page.hasMore, err = requireBool(ep, "hasMore", &w.HasMore); err != nil {
		return nil, err
	}
	var ok bool
	if page.nextCursor, ok = w.NextCursor.nullable(); !ok {
		return nil, &DecodeError{Endpoint: ep, Field: "nextCursor", Reason: w.NextCursor.problem(true)}
	}
	for i := range w.Rows {
		r := &w.Rows[i]
		// ResponseType defaults to answer when absent or null, the
		// resolution to unknown when absent, null or "".
		k := ConversationKey{ResponseType: ResponseTypeAnswer, Resolution: ResolutionUnknown}
		if r.ResponseType.st == wireOK {
			k.ResponseType = r.ResponseType.s
		}
		if r.ResolutionStatus.s != "" {
			k.Resolution = r.ResolutionStatus.s
		}
		if r.ID.st != wireOK || !r.ID.nonEmpty || k.ResponseType == "" ||
			r.ResponseType.st == wireWrongType || r.ResolutionStatus.st == wireWrongType {
			page.skipped.add(SkipBadRow)
			continue
		}
		page.counts[k]++
		page.turns++
	}
	return page, nil
}
