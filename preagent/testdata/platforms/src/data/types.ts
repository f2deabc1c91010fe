// Shared types of the platform data.
export interface Model {
  id: string;
  name: string;
  // USD per million tokens.
  input: number;
  output: number;
}

export interface Platform {
  id: string;
  name: string;
  url: string;
  models: Model[];
}
