# One image for every role; docker-compose.yml picks the entry point per service.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# tsx (a devDependency) runs the TypeScript sources directly.
RUN npm ci --include=dev && npm cache clean --force
COPY . .
USER node
EXPOSE 3000
# One node process (no npm or tsx wrapper), so SIGTERM reaches the service's shutdown handler.
CMD ["node", "--import", "tsx", "main.ts"]
