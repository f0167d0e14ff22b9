package client

import (
	"cmp"
	"context"
	"fmt"
)

// conversationWire is one turn, only what is counted: no text is kept.
type conversationWire struct {
	ID               leaf `json:"id"`
	ResponseType     leaf `json:"responseType"`
	ResolutionStatus leaf `json:"resolutionStatus"`
}

// WalkConversations counts every assistant conversation turn of a project
// in r by response type and resolution, following the cursor: one request
// per MaxConversationsPageSize turns, all or nothing. More than maxPages
// pages (0: DefaultConversationsMaxPages) is ErrTooManyPages, a cursor
// already seen a *DecodeError; hasMore without a nextCursor ends the walk
// with what was read. Malformed turns are skipped.
func (c *Client) WalkConversations(ctx context.Context, projectID string, r DateRange, maxPages int) (*ConversationsResult, error) {
	ep := EndpointConversations
	fail := func(i int, err error) error { return walkError(ep, projectID, r, fmt.Sprintf("page %d: ", i+1), err) }
	size := MaxConversationsPageSize
	if err := pagingDefaults(&size, &maxPages, MaxConversationsPageSize, DefaultConversationsMaxPages, projectID); err != nil {
		return nil, walkError(ep, projectID, r, "", err)
	}
	res := &ConversationsResult{Counts: make(map[ConversationKey]int)}
	seen := make(map[string]bool)
	cursor := ""
	empty := 0 // see emptyPage
	for i := range maxPages {
		body, err := c.getPage(ctx, ep, projectID, r, size, size, "cursor", cursor)
		if err != nil {
			return nil, fail(i, err)
		}
		next, more, none, err := decodeConversations(body, res)
		if err != nil {
			return nil, fail(i, err)
		}
		res.Pages++
		if !more {
			return res, nil
		}
		if err := emptyPage(&empty, none); err != nil {
			return nil, fail(i, err)
		}
		switch {
		case next == nil || *next == "": // there is no way to ask for more
			return res, nil
		case seen[*next]:
			return nil, fail(i, &DecodeError{Endpoint: ep, Field: "nextCursor", Reason: "cursor " + quoteShort(*next) + " repeats an earlier one"})
		}
		cursor = *next
		seen[cursor] = true
	}
	err := fmt.Errorf("more than %d pages of %d turns (%w): use a shorter window or raise --conversations.max-pages", maxPages, size, ErrTooManyPages)
	return nil, walkError(ep, projectID, r, "", err)
}

// decodeConversations decodes and validates one page of conversations and
// adds its turns to res, unless it fails: it returns the page's nextCursor
// and hasMore, and whether it had no turn.
func decodeConversations(body []byte, res *ConversationsResult) (next *string, more, none bool, err error) {
	var w struct {
		Rows       []row[conversationWire] `json:"conversations"`
		NextCursor leaf                    `json:"nextCursor"`
		HasMore    leaf                    `json:"hasMore"`
	}
	f := fields{ep: EndpointConversations, err: decodePage(EndpointConversations, body, &w)}
	var skipped Skipped
	keys := keepRows(&f, "conversations", w.Rows, &skipped, (*conversationWire).key)
	more = f.reqBool("hasMore", &w.HasMore)
	if next = f.nullString("nextCursor", &w.NextCursor); f.err != nil {
		return nil, false, false, f.err
	}
	for _, k := range keys {
		res.Counts[k]++
	}
	res.Turns += len(keys)
	res.Skipped.merge(skipped)
	return next, more, len(w.Rows) == 0, nil
}

// key classifies a turn: its response type defaults to answer when absent
// or null, its resolution to unknown when absent, null or "".
func (r *conversationWire) key() (ConversationKey, string) {
	k := ConversationKey{ResponseType: ResponseTypeAnswer, Resolution: cmp.Or(r.ResolutionStatus.s, ResolutionUnknown)}
	if r.ResponseType.kind == '"' {
		k.ResponseType = r.ResponseType.s
	}
	if r.ID.kind != '"' || r.ID.s == "" || k.ResponseType == "" || !r.ResponseType.nullable() || !r.ResolutionStatus.nullable() {
		return k, SkipBadRow
	}
	return k, ""
}
