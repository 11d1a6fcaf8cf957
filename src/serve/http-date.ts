/** The Date header's value, made once a second (every answer the server writes itself carries one). */
let dateSecond = 0;
let dateText = "";

export function httpDate(): string {
  const now = Date.now();
  if (now - dateSecond >= 1000) {
    dateSecond = now - (now % 1000);
    dateText = new Date(dateSecond).toUTCString();
  }
  return dateText;
}
