export const SDK_VERSION: string;
