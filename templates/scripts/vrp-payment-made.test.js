/* global obflowBody */
// POST /domestic-vrps inside the mandate's limits ({{js why}}): the payment of our consent, for the amount sent, made
// (not in a rejected state). Adds it to vrp_walk (the reports' mandate page); the first payment writes its id and
// Links.Self, where it is read back.
const env = pm.environment;
const notMade = JSON.parse('{{js notMade}}');
const first = JSON.parse('{{js first}}');
const body = obflowBody() || {};
const data = body.Data || {};
const links = body.Links || {};

pm.test("ConsentId is the consent's", function () {
  pm.expect(data.ConsentId).to.equal(env.get('consent_id'));
});
pm.test(
  '{{js amount}} {{js currency}} inside the limits is made: InstructedAmount as sent, Status not ' + notMade.join(' or '),
  function () {
    pm.expect((data.Instruction || {}).InstructedAmount, 'InstructedAmount').to.eql({
      Amount: '{{js amount}}',
      Currency: '{{js currency}}',
    });
    pm.expect(notMade, 'Status ' + data.Status).to.not.include(data.Status);
  },
);
const walk = JSON.parse(env.get('vrp_walk') || '[]');
walk.push({
  Amount: '{{js amount}}',
  Currency: '{{js currency}}',
  Outcome: 'made',
  Status: data.Status || '',
  DomesticVRPId: data.DomesticVRPId || '',
});
env.set('vrp_walk', JSON.stringify(walk));
if (first) {
  pm.test('Links.Self names the payment', function () {
    pm.expect(String(links.Self || '')).to.match(
      new RegExp('/domestic-vrps/' + String(data.DomesticVRPId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$'),
    );
  });
  env.set('vrp_payment_id', data.DomesticVRPId || '');
  env.set('vrp_payment_self_url', links.Self || '');
  env.set('vrp_payment_created', data.CreationDateTime || '');
  env.set('vrp_payment_status', data.Status || '');
}
