package client

import (
	"context"
	"fmt"
	"reflect"
)

// conversationWire is one turn, only what is counted: no text is kept.
type conversationWire struct {
	ID               leaf `json:"id"`
	ResponseType     leaf `json:"responseType"`
	ResolutionStatus leaf `json:"resolutionStatus"`
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
		where := ""
		if page >= 0 {
			where = fmt.Sprintf("page %d: ", page+1)
		}
		return walkError(ep, projectID, r, where, err)
	}
	if err := pagingDefaults(&o.PageSize, &o.MaxPages, MaxConversationsPageSize, DefaultConversationsPageSize, DefaultConversationsMaxPages); err != nil {
		return nil, fail(-1, err)
	}
	if _, err := segment("project id", projectID); err != nil {
		return nil, fail(-1, err)
	}
	res := &ConversationsResult{Range: r, Counts: make(map[ConversationKey]int)}
	seen := make(map[string]bool)
	cursor := ""
	empty := 0 // see emptyPage
	for i := 0; ; i++ {
		if i >= o.MaxPages {
			return nil, fail(-1, fmt.Errorf("more than %d pages of %d turns (%w): use a shorter window or raise --conversations.max-pages",
				o.MaxPages, o.PageSize, ErrTooManyPages))
		}
		body, err := c.getPage(ctx, ep, projectID, r, o.PageSize, MaxConversationsPageSize, "cursor", cursor)
		if err != nil {
			return nil, fail(i, err)
		}
		page, err := decodeConversations(body)
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
		if err := emptyPage(&empty, page.turns == 0 && page.skipped.Total() == 0); err != nil {
			return nil, fail(i, err)
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
	var w struct {
		Rows       []conversationWire `json:"conversations"`
		NextCursor leaf               `json:"nextCursor"`
		HasMore    leaf               `json:"hasMore"`
	}
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
		return nil, &DecodeError{Endpoint: ep, Field: "nextCursor", Reason: w.NextCursor.problem("string or null")}
	}
	for i := range w.Rows {
		r := &w.Rows[i]
		// ResponseType defaults to answer when absent or null, the
		// resolution to unknown when absent, null or "".
		k := ConversationKey{ResponseType: ResponseTypeAnswer, Resolution: ResolutionUnknown}
		if r.ResponseType.kind == '"' {
			k.ResponseType = r.ResponseType.s
		}
		if r.ResolutionStatus.s != "" {
			k.Resolution = r.ResolutionStatus.s
		}
		_, typeOK := r.ResponseType.nullable()
		_, resolutionOK := r.ResolutionStatus.nullable()
		if r.ID.kind != '"' || r.ID.s == "" || k.ResponseType == "" || !typeOK || !resolutionOK {
			page.skipped.add(SkipBadRow)
			continue
		}
		page.counts[k]++
		page.turns++
	}
	return page, nil
}
