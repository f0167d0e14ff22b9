package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
)

// GetJob reads an agent job; an unknown one IsNotFound.
func (c *Client) GetJob(ctx context.Context, projectID, jobID string) (*Job, error) {
	body, err := c.do(ctx, &call{endpoint: EndpointGetJob, project: projectID, job: jobID})
	if err != nil {
		return nil, err
	}
	return decodeJob(EndpointGetJob, body, jobID)
}

// SendMessage sends a follow-up prompt to an agent job and returns the job
// as answered (poll GetJob to follow it). An empty prompt is ErrEmptyPrompt,
// unsent. It is repeated only when it certainly never reached the server,
// so a message is never sent twice.
func (c *Client) SendMessage(ctx context.Context, projectID, jobID, prompt string) (*Job, error) {
	return c.postPrompt(ctx, EndpointSendMessage, projectID, jobID, prompt)
}

// CreateJob starts an agent job and returns it; an answer without an id is
// a DecodeError (the job could not be followed). Like SendMessage, it is
// never sent twice.
func (c *Client) CreateJob(ctx context.Context, projectID, prompt string) (*Job, error) {
	return c.postPrompt(ctx, EndpointCreateJob, projectID, "", prompt)
}

func (c *Client) postPrompt(ctx context.Context, ep Endpoint, projectID, jobID, prompt string) (*Job, error) {
	if prompt == "" {
		return nil, fmt.Errorf("%s: %w", ep, ErrEmptyPrompt)
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct { // a string always encodes
		Prompt string `json:"prompt"`
	}{prompt})
	answer, err := c.do(ctx, &call{endpoint: ep, project: projectID, job: jobID, body: bytes.TrimSuffix(body.Bytes(), []byte("\n"))})
	if err != nil {
		return nil, err
	}
	return decodeJob(ep, answer, jobID)
}

// decodeJob decodes an agent job object, where no field is required (id is
// then requestedID, unless none was: CreateJob's) but a present one must
// have its documented type.
func decodeJob(ep Endpoint, body []byte, requestedID string) (*Job, error) {
	var w struct {
		ID         leaf            `json:"id"`
		Status     leaf            `json:"status"`
		Source     json.RawMessage `json:"source"`
		Model      leaf            `json:"model"`
		PRLink     leaf            `json:"prLink"`
		CreatedAt  leaf            `json:"createdAt"`
		ArchivedAt leaf            `json:"archivedAt"`
	}
	f := fields{ep: ep, err: decodePage(ep, body, &w)}
	j := &Job{Raw: json.RawMessage(bytes.Clone(bytes.TrimSpace(body)))}
	j.ID = cmp.Or(f.optString("id", &w.ID), requestedID)
	j.Status = JobStatus(labelText(f.optString("status", &w.Status)))
	var src struct {
		Repository leaf `json:"repository"`
		Ref        leaf `json:"ref"`
	}
	if f.object("source", w.Source, &src, true) {
		j.Source.Repository = labelText(f.optString("source.repository", &src.Repository))
		if j.Source.Ref = f.nullString("source.ref", &src.Ref); j.Source.Ref != nil {
			*j.Source.Ref = labelText(*j.Source.Ref)
		}
	}
	j.Model = labelText(f.optString("model", &w.Model))
	j.PRLink = f.nullString("prLink", &w.PRLink)
	if at := f.nullTime("createdAt", &w.CreatedAt); at != nil {
		j.CreatedAt = *at
	}
	j.ArchivedAt = f.nullTime("archivedAt", &w.ArchivedAt)
	if j.ID == "" { // CreateJob asks for none; checked last, after every field
		f.fail("id", "missing: the new job cannot be followed")
	}
	return checked(j, &f)
}
