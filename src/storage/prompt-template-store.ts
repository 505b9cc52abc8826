/** Prompt templates (`prompt_templates`), including read-only rows synced from MCP servers. */

export type TemplateOrigin = 'manual' | 'mcp';

export interface PromptTemplate {
  templateId: string;
  name: string;
  category: string;
  content: string;
  description: string;
  /** Argument names. */
  variables: string[];
  isDefault: boolean;
  orgId: string;
  createdBy: string;
  origin: TemplateOrigin;
  mcpServer: string;
  readonly: boolean;
  created: string;
  updated: string;
}

export type PromptTemplateInput = Pick<PromptTemplate, 'name' | 'content'> &
  Partial<Omit<PromptTemplate, 'templateId' | 'name' | 'content' | 'created' | 'updated'>>;

export interface PromptTemplateStore {
  /** Inserts; returns undefined when the name exists. */
  create(input: PromptTemplateInput): Promise<PromptTemplate | undefined>;
  getByName(name: string): Promise<PromptTemplate | undefined>;
  update(
    templateId: string,
    patch: Partial<
      Pick<PromptTemplate, 'content' | 'description' | 'variables' | 'isDefault' | 'category' | 'mcpServer'>
    >,
  ): Promise<boolean>;
  delete(templateId: string): Promise<boolean>;
  /** All rows, or one origin's, by name. */
  list(origin?: TemplateOrigin): Promise<PromptTemplate[]>;
}
