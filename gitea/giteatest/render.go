package giteatest

import (
	"fmt"
	"time"
)

// The renderers give Gitea's JSON shapes (modules/structs) with the fields
// the description documents; a nil pointer Gitea would send as null is
// left out, which its description (no nullable fields) allows.

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (s *Server) web(format string, args ...any) string {
	return s.srv.URL + fmt.Sprintf(format, args...)
}

func (s *Server) userObj(login string) obj {
	u := s.st.users[lower(login)]
	var id int64
	admin := false
	if u != nil {
		id, admin = u.id, u.admin
	}
	return obj{"id": id, "login": login, "login_name": "", "full_name": "", "email": login + "@example.com",
		"avatar_url": s.web("/avatars/%s", login), "html_url": s.web("/%s", login), "is_admin": admin,
		"username": login, "active": true, "visibility": "public"}
}

func (s *Server) repoObj(r *repo, viewer string) obj {
	perm := r.permission(&s.st, viewer)
	return obj{"id": r.id, "owner": s.userObj(r.owner), "name": r.name, "full_name": r.owner + "/" + r.name,
		"private": r.private, "fork": false, "empty": false, "archived": false,
		"html_url": s.web("/%s/%s", r.owner, r.name), "clone_url": r.cloneURL, "default_branch": r.defaultBranch,
		"url":         s.web("/api/v1/repos/%s/%s", r.owner, r.name),
		"permissions": obj{"admin": atLeast(perm, "admin"), "push": atLeast(perm, "write"), "pull": atLeast(perm, "read")}}
}

func (s *Server) labelObj(r *repo, l *label) obj {
	return obj{"id": l.id, "name": l.name, "color": l.color, "description": l.descr, "exclusive": false,
		"is_archived": false, "url": s.web("/api/v1/repos/%s/%s/labels/%d", r.owner, r.name, l.id)}
}

func (s *Server) labelsObj(r *repo, is *issue) []obj {
	out := []obj{}
	for _, id := range is.labels {
		if l := r.label(id); l != nil {
			out = append(out, s.labelObj(r, l))
		}
	}
	return out
}

func (s *Server) issueObj(r *repo, is *issue) obj {
	kind := "issues"
	if is.pr != nil {
		kind = "pulls"
	}
	o := obj{"id": is.id, "number": is.number, "title": is.title, "body": is.body, "state": is.state,
		"user": s.userObj(is.user), "labels": s.labelsObj(r, is), "comments": len(is.comments),
		"html_url":   s.web("/%s/%s/%s/%d", r.owner, r.name, kind, is.number),
		"url":        s.web("/api/v1/repos/%s/%s/issues/%d", r.owner, r.name, is.number),
		"created_at": ts(is.created), "updated_at": ts(is.updated),
		"repository": obj{"id": r.id, "name": r.name, "owner": r.owner, "full_name": r.owner + "/" + r.name}}
	if is.pr != nil {
		o["pull_request"] = obj{"merged": is.pr.merged, "draft": isDraft(is.title),
			"html_url": s.web("/%s/%s/pulls/%d", r.owner, r.name, is.number)}
	}
	return o
}

func (s *Server) commentObj(r *repo, is *issue, c *comment) obj {
	o := obj{"id": c.id, "user": s.userObj(c.user), "body": c.body,
		"html_url":   s.web("/%s/%s/issues/%d#issuecomment-%d", r.owner, r.name, is.number, c.id),
		"issue_url":  s.web("/%s/%s/issues/%d", r.owner, r.name, is.number),
		"created_at": ts(c.created), "updated_at": ts(c.updated)}
	if is.pr != nil {
		o["pull_request_url"] = s.web("/%s/%s/pulls/%d", r.owner, r.name, is.number)
		o["issue_url"] = ""
	}
	return o
}

func (s *Server) branchObj(r *repo, ref, sha string) obj {
	return obj{"label": ref, "ref": ref, "sha": sha, "repo_id": r.id, "repo": s.repoObj(r, r.owner)}
}

func (s *Server) pullObj(r *repo, is *issue) obj {
	p := is.pr
	head, base := s.heads(r, is)
	reviewers := []obj{}
	for _, u := range p.requested {
		reviewers = append(reviewers, s.userObj(u))
	}
	return obj{"id": is.id, "number": is.number, "title": is.title, "body": is.body, "state": is.state,
		"draft": isDraft(is.title), "merged": p.merged, "mergeable": !p.merged && is.state == "open",
		"user": s.userObj(is.user), "labels": s.labelsObj(r, is), "requested_reviewers": reviewers,
		"html_url": s.web("/%s/%s/pulls/%d", r.owner, r.name, is.number),
		"diff_url": s.web("/%s/%s/pulls/%d.diff", r.owner, r.name, is.number),
		"url":      s.web("/api/v1/repos/%s/%s/pulls/%d", r.owner, r.name, is.number),
		"head":     s.branchObj(r, p.head, head), "base": s.branchObj(r, p.base, base),
		"merge_base": p.baseSHA, "comments": len(is.comments),
		"created_at": ts(is.created), "updated_at": ts(is.updated)}
}

func (s *Server) reviewObj(r *repo, is *issue, rv *review) obj {
	return obj{"id": rv.id, "user": s.userObj(rv.user), "state": rv.state, "body": rv.body, "commit_id": rv.sha,
		"stale": false, "official": rv.state != "REQUEST_REVIEW", "dismissed": false, "comments_count": len(rv.comments),
		"html_url":         s.web("/%s/%s/pulls/%d#issuecomment-%d", r.owner, r.name, is.number, rv.id),
		"pull_request_url": s.web("/%s/%s/pulls/%d", r.owner, r.name, is.number),
		"submitted_at":     ts(rv.submitted), "updated_at": ts(rv.submitted)}
}

func (s *Server) reviewCommentObj(r *repo, is *issue, rv *review, c reviewComment) obj {
	return obj{"id": c.id, "body": c.Body, "user": s.userObj(c.user), "pull_request_review_id": rv.id,
		"path": c.Path, "commit_id": rv.sha, "original_commit_id": rv.sha, "diff_hunk": c.DiffHunk,
		"position": c.Line, "original_position": c.OldLine,
		"html_url":         s.web("/%s/%s/pulls/%d/files#issuecomment-%d", r.owner, r.name, is.number, c.id),
		"pull_request_url": s.web("/%s/%s/pulls/%d", r.owner, r.name, is.number),
		"created_at":       ts(rv.submitted), "updated_at": ts(rv.submitted)}
}

func (s *Server) statusObj(st *Status, at time.Time) obj {
	return obj{"id": st.ID, "status": st.State, "context": st.Context, "description": st.Description,
		"target_url": st.TargetURL, "creator": s.userObj(st.By), "created_at": ts(at), "updated_at": ts(at)}
}

func (s *Server) hookObj(h *Hook, at time.Time) obj {
	cfg := map[string]string{"url": h.Config["url"], "content_type": h.Config["content_type"]}
	return obj{"id": h.ID, "type": h.Type, "config": cfg, "events": h.Events, "active": h.Active,
		"branch_filter": h.BranchFilter, "authorization_header": "", "created_at": ts(at), "updated_at": ts(at)}
}
