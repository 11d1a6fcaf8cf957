export interface ReviewCheck {
  name: string;
  success: boolean;
  exitCode: number | null;
  output: string;
  findings: string[];
}

export interface ReviewResult {
  storyId: string;
  success: boolean;
  checks: ReviewCheck[];
}
