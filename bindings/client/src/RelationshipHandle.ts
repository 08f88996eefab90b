// RelationshipHandle lives in UserHandle.ts: each handle returns the other (UserHandle.relationship(),
// RelationshipHandle.user()), so the two are one file rather than two that import each other.
export { RelationshipHandle } from './UserHandle.ts';
