-- Reserved: number 7 belongs to another branch's migration (issue 12's helper was given 0008).
-- This placeholder keeps the numbers without a gap on branch i12 and changes nothing; at merge
-- the other branch's 0007 replaces it.
SELECT 1;
